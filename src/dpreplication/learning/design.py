"""The design matrix ``X̃ = [X, 1]`` of binary-coded data, held as a sparse matrix plus one row.

Most columns of the PrivGene datasets are ±1 (one-hot blocks, binary attributes, the bias), and
in each column one of the two values is rare: on Adult, 10 of a row's 124 entries differ from
their column's common value. With ``c_j`` that common value for a ±1 column and ``c_j = 0`` for
any other column, ``X̃ = A + 𝟙cᵀ``, and ``A`` is zero but at the rare entries (``±2``) and in the
other columns. The products that linear models need then cost ``O(nnz(A))`` instead of
``O(n d)``::

    X̃ W   = A W + 𝟙 (cᵀW)
    X̃ᵀ v  = Aᵀ v + (𝟙ᵀv) c
    X̃ᵀ diag(h) X̃ = Aᵀ diag(h) A + (Aᵀh) cᵀ + c (Aᵀh)ᵀ + (𝟙ᵀh) c cᵀ

Each equals the dense product up to rounding (a few units of the last place of the largest
term). Where ``A`` is not sparse (fewer ±1 columns or no rare value), it is held dense and
``c = 0``: the products are then the dense ones.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy import sparse

SPARSE_DENSITY = 0.25
"""Hold ``A`` sparse when at most this share of its entries is nonzero (on Adult, 8 %: products
3.5–5× faster than dense; at a quarter, sparse and dense products cost about the same)."""


class BinaryDesign:
    """``X̃ = A + 𝟙cᵀ`` (module docstring), shape ``(n, d)``; build it with :meth:`of`.

    Attributes
    ----------
    rest : scipy.sparse.csr_array or numpy.ndarray, shape (n, d)
        ``A = X̃ - 𝟙cᵀ``.
    common : numpy.ndarray, shape (d,)
        ``c``: the common value of each ±1 column (+1 on a tie), 0 for the other columns (all 0
        when ``A`` is dense).
    signed : numpy.ndarray of bool, shape (d,)
        Which columns of ``X̃`` have every entry ±1.
    """

    def __init__(self, rest, common: np.ndarray, signed: np.ndarray):
        self.rest, self.common, self.signed = rest, common, signed
        self.shape = rest.shape

    @classmethod
    def of(cls, design: np.ndarray) -> BinaryDesign:
        """Hold the dense ``design`` as ``A + 𝟙cᵀ``, ``A`` sparse when at most :data:`SPARSE_DENSITY` of it is nonzero."""
        design = np.asarray(design, dtype=float)
        signed = np.all(np.abs(design) == 1.0, axis=0)
        common = np.where(signed, np.where(2 * (design > 0).sum(axis=0) >= len(design), 1.0, -1.0), 0.0)
        rest = design - common
        if np.count_nonzero(rest) <= SPARSE_DENSITY * rest.size:
            return cls(sparse.csr_array(rest), common, signed)
        return cls(design, np.zeros(design.shape[1]), signed)

    @property
    def is_sparse(self) -> bool:
        """Whether ``A`` is held sparse."""
        return sparse.issparse(self.rest)

    def dot(self, weights: np.ndarray) -> np.ndarray:
        """``X̃ w`` (shape ``(n,)``) or ``X̃ W`` for ``W`` of shape ``(d, k)`` (shape ``(n, k)``)."""
        return self.rest @ weights + self.common @ weights

    def transpose_dot(self, values: np.ndarray) -> np.ndarray:
        """``X̃ᵀ v`` for ``v`` of shape ``(n,)``: shape ``(d,)``."""
        return self.rest.T @ values + values.sum() * self.common

    def weighted_gram(self, weights: np.ndarray) -> np.ndarray:
        """``X̃ᵀ diag(h) X̃`` (shape ``(d, d)``) for row weights ``h`` of shape ``(n,)``."""
        if not self.is_sparse:
            return (self.rest * weights[:, None]).T @ self.rest
        weighted = self.rest.T @ weights
        gram = (self.rest.T @ (self.rest * weights[:, None])).toarray()
        gram += np.outer(weighted, self.common)
        gram += np.outer(self.common, weighted)
        gram += weights.sum() * np.outer(self.common, self.common)
        return gram

    def rows(self, start: int, stop: int) -> BinaryDesign:
        """``X̃[start:stop]``, held like ``X̃``."""
        return BinaryDesign(self.rest[start:stop], self.common, self.signed)

    @cached_property
    def columns(self) -> np.ndarray:
        """``X̃ᵀ`` dense and C-contiguous: one column of ``X̃`` is one contiguous row."""
        dense = self.rest.toarray() if self.is_sparse else self.rest
        return np.ascontiguousarray((dense + self.common).T)
