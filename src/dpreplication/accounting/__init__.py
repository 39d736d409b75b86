"""Privacy accounting of the replications.

RDP of the sampled Gaussian (DP-SGD), GNMax calibration, composition, the exact (mε, δ) verifier
of DaRRM noise functions, a numerical hockey-stick audit of additive noise, and the privacy ledger
(what each release spent, recorded where its noise is drawn).
"""

from dpreplication.exports import lazy_exports

_EXPORTS = {
    "sampled_gaussian_rdp": "rdp",
    "rdp_to_epsilon": "rdp",
    "dp_sgd_epsilon": "rdp",
    "calibrate_steps": "rdp",
    "GNMaxCalibration": "rdp",
    "gnmax_noise_scale": "rdp",
    "gnmax_epsilon": "rdp",
    "advanced_composition": "composition",
    "PrivacyReport": "privacy_verifier",
    "verify_privacy": "privacy_verifier",
    "PrivacyAudit": "hockey_stick",
    "audit_noise_privacy": "hockey_stick",
    "max_privacy_loss": "privacy_loss",
    "spending": "ledger",
    "Ledger": "ledger",
    "PrivacyBudgetExceeded": "ledger",
    "ledger_table": "ledger",
    "BasicCompositionAccountant": "events",
    "PRIVACY_MAPS": "events",
    "privacy_map": "events",
    "epsilon_delta": "events",
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
