"""The scorecard: every claim of a paper, recomputed by the pipeline and judged.

A claim registry (``workflow/claims/<paper>.yaml``) names, for each claim, the
paper's value, a tolerance, a comparison, its kind, and *how it is computed*: the
table (a CSV written by some rule), the row (``select``) and the ``column`` whose
value is the reproduction. Nothing here stores a reproduced number; a deviation's
reason is a template filled with measured values.
"""

from dpreplication.scorecard.claims import KINDS, Claim, Deviation, claims_on, load_registry, registry_margins
from dpreplication.scorecard.evaluation import COLUMNS, STATUSES, evaluate_claims
from dpreplication.scorecard.pages import paper_page, read_scorecard, summary_page, sync_readme

__all__ = [
    "COLUMNS",
    "KINDS",
    "STATUSES",
    "Claim",
    "Deviation",
    "claims_on",
    "evaluate_claims",
    "load_registry",
    "paper_page",
    "read_scorecard",
    "registry_margins",
    "summary_page",
    "sync_readme",
]
