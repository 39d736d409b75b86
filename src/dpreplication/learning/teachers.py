"""Teacher ensembles for private prediction (DaRRM spec §3).

A small CNN per disjoint data shard, trained with DP-SGD (Opacus) or without privacy, and their
votes on the query images.

DP-SGD (Abadi et al. 2016) through Opacus ``PrivacyEngine.make_private``: Poisson sampling at
rate ``q = 1/⌈n/B⌉`` (Opacus' rate for a shard of ``n`` images and batch size ``B``), per-sample
gradients clipped to norm ``C``, Gaussian noise ``N(0, σ²C²)`` added to their sum. Privacy: the
teacher is ``(ε, Δ)``-DP with respect to its shard, with ``ε`` from the RDP accountant of
:mod:`dpreplication.accounting.rdp` for ``(q, σ, steps, Δ)`` — the trainer never takes more
steps than the caller's budget. Because the shards are disjoint, one training image changes one
teacher only. Non-private teachers (for GNMax) have no guarantee of their own.

Determinism: every teacher seeds ``torch`` from its own key (weights, Poisson sampling and
shuffling use the global generator; DP noise a dedicated ``torch.Generator``), runs with
deterministic algorithms and a fixed thread count; CPU results are then bit-stable. A CUDA
device is used when present (results then differ from CPU in the last bits).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from dpreplication.accounting.ledger import record_dp_sgd, record_non_private
from dpreplication.validation import non_negative, positive

log = logging.getLogger(__name__)

N_CLASSES = 10


class TeacherCNN(nn.Module):
    """Conv(1→16, 5×5, pad 2)–ReLU–MaxPool2, Conv(16→32, 5×5, pad 2)–ReLU–MaxPool2, Linear(1568→10) (spec §3)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 5, padding=2),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 5, padding=2),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(32 * 7 * 7, N_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Class logits ``(n, 10)`` of images ``(n, 1, 28, 28)``."""
        return self.classifier(self.features(x).flatten(1))


def configure_torch(threads: int) -> torch.device:
    """Deterministic algorithms, ``threads`` intra-op threads; CUDA if available, else CPU.

    On CUDA, cuBLAS needs a fixed workspace to be deterministic; kernels without a deterministic
    implementation warn instead of failing (GPU results are not compared bit for bit).
    """
    cuda = torch.cuda.is_available()
    if cuda:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=cuda)
    torch.set_num_threads(max(1, int(threads)))
    return torch.device("cuda" if cuda else "cpu")


def as_tensor_images(images: np.ndarray) -> torch.Tensor:
    """uint8 ``(n, 28, 28)`` → float ``(n, 1, 28, 28)`` in [0, 1] (torchvision's ``ToTensor``)."""
    return torch.from_numpy(np.ascontiguousarray(images, dtype=np.float32) / 255.0).unsqueeze(1)


def poisson_sample_rate(shard_size: int, batch_size: int) -> float:
    """Opacus' sampling rate ``1/len(loader) = 1/⌈n/B⌉`` for a shard of ``n`` images."""
    return 1.0 / -(-shard_size // batch_size)


@dataclass(frozen=True)
class TrainingRecord:
    """What a training run did.

    For DP-SGD, ``noise_multiplier``, ``max_grad_norm`` and
    ``sample_rate`` are read back from Opacus' optimiser and data loader after ``make_private``,
    and ``accountant_history`` is its accountant's ``(σ, q, steps)`` record: the accounting of the
    reported ε must use exactly these. ``poisson_rate`` is the inclusion probability of Opacus'
    batch sampler, ``expected_batch_size`` the divisor of the noisy gradient sum, and
    ``accountant`` Opacus' own accountant of the run (for audits).
    """

    steps: int
    epochs: float
    sample_rate: float
    seconds: float
    noise_multiplier: float | None = None
    max_grad_norm: float | None = None
    accountant_history: tuple = ()
    poisson_rate: float | None = None
    expected_batch_size: int | None = None
    accountant: object = field(default=None, compare=False, repr=False)


OPTIMISERS = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}
"""The optimisers a private teacher can take (Adam is the authors' [C]; plain SGD for the ablation)."""


def _seed(seed: int, device: torch.device) -> torch.Generator:
    """Seed torch's global generators with ``seed``; a generator on ``device`` seeded ``seed + 1``."""
    torch.manual_seed(seed)
    return torch.Generator(device).manual_seed(seed + 1)


def train_private(
    images: np.ndarray,
    labels: np.ndarray,
    steps: int,
    noise_multiplier: float,
    max_grad_norm: float,
    learning_rate: float,
    batch_size: int,
    seed: int,
    device: torch.device,
    optimiser: str = "adam",
) -> tuple[nn.Module, TrainingRecord]:
    """Train a :class:`TeacherCNN` by DP-SGD for exactly ``steps`` Poisson-sampled steps (module docstring).

    DP-SGD (Abadi et al. 2016, Algorithm 1) through Opacus: ``optimiser`` of :data:`OPTIMISERS`
    on the privatised gradient, cross-entropy loss.
    Guarantee: ``(ε, Δ)``-DP with respect to the shard, under add/remove-one neighbours (the
    adjacency of the sampled-Gaussian RDP bound), with ``ε = dp_sgd_epsilon(σ, q, steps, Δ)``
    (:func:`dpreplication.accounting.rdp.dp_sgd_epsilon`; Mironov, Talwar & Zhang 2019 and Balle
    et al. 2020, Thm. 21) for any ``0 < Δ < 1`` and ``q = 1/⌈n/B⌉`` (:attr:`TrainingRecord.sample_rate`).
    The function computes no ε: the caller accounts with the record's ``(σ, q, steps)``. The
    guarantee is that of the idealised mechanism: ``secure_mode=False`` and a seeded noise
    generator give floating-point, reproducible (not cryptographically secure) noise.

    Parameters
    ----------
    images : numpy.ndarray, shape (n, 28, 28), dtype uint8
        The shard's images.
    labels : numpy.ndarray, shape (n,), entries in 0..9
        Their classes.
    steps : int, ≥ 0 and finite
        Number of optimiser steps.
    noise_multiplier : float, σ > 0 and finite
        Noise standard deviation over the clipping norm.
    max_grad_norm : float, C > 0 and finite
        Per-sample gradient clipping norm.
    learning_rate : float, > 0
        Learning rate of the optimiser.
    batch_size : int, B ≥ 1
        Expected batch size; sets ``q = 1/⌈n/B⌉``.
    seed : int
        Seed of the weights, the Poisson sampling and (``seed + 1``) the DP noise.
    device : torch.device
        Where to train (:func:`configure_torch`).
    optimiser : {"adam", "sgd"}
        Key of :data:`OPTIMISERS`.

    Returns
    -------
    tuple
        ``(model, record)``: the trained module (unwrapped from Opacus) and its :class:`TrainingRecord`.

    Raises
    ------
    ValueError
        If ``steps``, ``noise_multiplier`` or ``max_grad_norm`` is out of range (NaN and
        infinities included: an infinite or NaN ``steps`` would never end).
    RuntimeError
        If Opacus' accountant counted a number of steps other than ``steps``.
    """
    from opacus import PrivacyEngine

    non_negative("steps", steps)
    positive("noise_multiplier", noise_multiplier)
    positive("max_grad_norm", max_grad_norm)

    noise_generator = _seed(seed, device)
    model = TeacherCNN().to(device)
    optimiser = OPTIMISERS[optimiser](model.parameters(), lr=learning_rate)
    loader = DataLoader(
        TensorDataset(as_tensor_images(images), torch.from_numpy(labels.astype(np.int64))), batch_size=batch_size
    )
    engine = PrivacyEngine(accountant="rdp", secure_mode=False)
    model, optimiser, loader = engine.make_private(
        module=model,
        optimizer=optimiser,
        data_loader=loader,
        noise_multiplier=noise_multiplier,
        max_grad_norm=max_grad_norm,
        poisson_sampling=True,
        noise_generator=noise_generator,
    )
    sample_rate = 1.0 / len(loader)
    record_dp_sgd("dp_sgd", optimiser.noise_multiplier, loader.batch_sampler.sample_rate, steps)
    loss_function = nn.CrossEntropyLoss()
    start, done = time.perf_counter(), 0
    model.train()
    while done < steps:
        for x, y in loader:
            optimiser.zero_grad()
            loss_function(model(x.to(device)), y.to(device)).backward()
            optimiser.step()
            done += 1
            if done == steps:
                break
    if len(engine.accountant.history) and sum(h[2] for h in engine.accountant.history) != steps:
        raise RuntimeError(f"Opacus counted {engine.accountant.history} steps, expected {steps}")
    record = TrainingRecord(
        steps,
        steps * sample_rate,
        sample_rate,
        time.perf_counter() - start,
        noise_multiplier=float(optimiser.noise_multiplier),
        max_grad_norm=float(optimiser.max_grad_norm),
        accountant_history=tuple(tuple(h) for h in engine.accountant.history),
        poisson_rate=float(loader.batch_sampler.sample_rate),
        expected_batch_size=int(optimiser.expected_batch_size),
        accountant=engine.accountant,
    )
    return model._module, record


def train_nonprivate(
    images: np.ndarray,
    labels: np.ndarray,
    epochs: int,
    learning_rate: float,
    batch_size: int,
    seed: int,
    device: torch.device,
) -> tuple[nn.Module, TrainingRecord]:
    """Adam on shuffled mini-batches for ``epochs`` epochs (no privacy: the ledger records ε = ∞)."""
    record_non_private("nonprivate_training")
    shuffle_generator = _seed(seed, torch.device("cpu"))
    model = TeacherCNN().to(device)
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    loader = DataLoader(
        TensorDataset(as_tensor_images(images), torch.from_numpy(labels.astype(np.int64))),
        batch_size=batch_size,
        shuffle=True,
        generator=shuffle_generator,
    )
    loss_function = nn.CrossEntropyLoss()
    start = time.perf_counter()
    model.train()
    for _ in range(epochs):
        for x, y in loader:
            optimiser.zero_grad()
            loss_function(model(x.to(device)), y.to(device)).backward()
            optimiser.step()
    return model, TrainingRecord(epochs * len(loader), float(epochs), 1.0 / len(loader), time.perf_counter() - start)


@torch.no_grad()
def predict(model: nn.Module, images: np.ndarray, device: torch.device, batch_size: int = 1000) -> np.ndarray:
    """Arg-max class (0–9) of every image."""
    model.eval()
    x = as_tensor_images(images)
    return np.concatenate(
        [model(x[i : i + batch_size].to(device)).argmax(1).cpu().numpy() for i in range(0, len(x), batch_size)]
    ).astype(np.int8)
