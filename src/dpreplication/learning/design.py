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

Rows multiplied by ±1 signs ``σ`` (the SVM's ``y·[x, 1]``) are ``diag(σ)X̃``: the signs are applied
to the products' results or arguments, so that the labels do not make ``A`` dense. Each product
equals the dense one up to rounding (a few units of the last place of the largest term). Where
``A`` is not sparse (fewer ±1 columns, no rare value, or a small matrix), it is held dense and
``c = 0``: the products are then the dense ones.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy import sparse
from scipy.linalg import blas

SPARSE_DENSITY = 0.25
"""Hold ``A`` sparse when at most this share of its entries is nonzero (on Adult, 8 %: products
3.5–5× faster than dense; at a quarter, sparse and dense products cost about the same)..."""
SPARSE_CELLS = 1 << 17
"""...and it has at least this many entries: below, scipy.sparse's cost per call outweighs the
saving (a GUPT block of Adult, 575 × 124, ran its Newton fits 1.4× slower sparse)."""


class BinaryDesign:
    """``X̃ = diag(σ)(A + 𝟙cᵀ)`` (module docstring), shape ``(n, d)``; build it with :meth:`of`.

    Attributes
    ----------
    rest : scipy.sparse.csr_array or numpy.ndarray, shape (n, d)
        ``A``; held dense it is ``X̃`` itself (``σ`` applied).
    common : numpy.ndarray, shape (d,)
        ``c``: the common value of each ±1 column (+1 on a tie), 0 for the other columns (all 0
        when ``A`` is dense).
    row_signs : numpy.ndarray or None, shape (n,)
        ``σ`` (the SVM's labels, rows ``y·[x, 1]``), ``None`` for all +1 (and when ``A`` is dense).
    signed : numpy.ndarray of bool, shape (d,)
        Which columns of ``X̃`` have every entry ±1.
    """

    def __init__(self, rest, common: np.ndarray, row_signs: np.ndarray | None, signed: np.ndarray):
        self.rest, self.common, self.row_signs, self.signed = rest, common, row_signs, signed
        self.shape = rest.shape

    @classmethod
    def of(cls, design: np.ndarray, row_signs: np.ndarray | None = None) -> BinaryDesign:
        """Hold ``diag(σ)·design`` (``σ = row_signs``, ±1) as ``diag(σ)(A + 𝟙cᵀ)``.

        ``A`` is sparse when it has at least :data:`SPARSE_CELLS` entries and at most
        :data:`SPARSE_DENSITY` of them are nonzero; the row signs do not change ``A``'s sparsity.
        """
        design = np.asarray(design, dtype=float)
        signed = np.all(np.abs(design) == 1.0, axis=0)
        signs = None if row_signs is None else np.asarray(row_signs, dtype=float)
        if design.size >= SPARSE_CELLS and signed.any():
            common = np.where(signed, np.where(2 * (design > 0).sum(axis=0) >= len(design), 1.0, -1.0), 0.0)
            rest = design - common
            if np.count_nonzero(rest) <= SPARSE_DENSITY * rest.size:
                return cls(sparse.csr_array(rest), common, signs, signed)
        if signs is not None:
            design = design * signs[:, None]
        return cls(design, np.zeros(design.shape[1]), None, signed)

    @property
    def is_sparse(self) -> bool:
        """Whether ``A`` is held sparse."""
        return sparse.issparse(self.rest)

    def dot(self, weights: np.ndarray) -> np.ndarray:
        """``X̃ w`` (shape ``(n,)``) or ``X̃ W`` for ``W`` of shape ``(d, k)`` (shape ``(n, k)``)."""
        product = self.rest @ weights + self.common @ weights
        if self.row_signs is None:
            return product
        return product * (self.row_signs if product.ndim == 1 else self.row_signs[:, None])

    def transpose_dot(self, values: np.ndarray) -> np.ndarray:
        """``X̃ᵀ v`` for ``v`` of shape ``(n,)``: shape ``(d,)``."""
        if self.row_signs is not None:
            values = self.row_signs * values
        return self.rest.T @ values + values.sum() * self.common

    def weighted_gram_upper(self, weights: np.ndarray) -> np.ndarray:
        """``X̃ᵀ diag(h) X̃`` (shape ``(d, d)``) for row weights ``h ≥ 0`` of shape ``(n,)``: its upper triangle.

        Below the diagonal the entries are 0 (dense ``X̃``: BLAS's ``syrk``) or the same values
        (sparse); a Cholesky solve reads only the upper triangle.
        """
        if not self.is_sparse:  # (√h∘X̃)ᵀ(√h∘X̃); the transpose of a C-ordered array is BLAS's column order
            return blas.dsyrk(1.0, np.ascontiguousarray(np.sqrt(weights)[:, None] * self.rest).T)
        weighted = self.rest.T @ weights
        gram = (self.rest.T @ (self.rest * weights[:, None])).toarray()
        gram += np.outer(weighted, self.common)
        gram += np.outer(self.common, weighted)
        gram += weights.sum() * np.outer(self.common, self.common)
        return gram

    def rows(self, start: int, stop: int) -> BinaryDesign:
        """``X̃[start:stop]``, held like ``X̃``."""
        signs = None if self.row_signs is None else self.row_signs[start:stop]
        return BinaryDesign(self.rest[start:stop], self.common, signs, self.signed)

    def rows_where(self, chosen: np.ndarray) -> np.ndarray:
        """Return the rows of ``X̃`` where the boolean ``chosen`` holds, dense: shape ``(k, d)``."""
        if not self.is_sparse:
            return self.rest[chosen]
        rows = self.rest[chosen].toarray() + self.common
        return rows if self.row_signs is None else rows * self.row_signs[chosen, None]

    @cached_property
    def columns(self) -> np.ndarray:
        """``X̃ᵀ`` dense and C-contiguous: one column of ``X̃`` is one contiguous row."""
        if not self.is_sparse:
            return np.ascontiguousarray(self.rest.T)
        columns = np.ascontiguousarray((self.rest.toarray() + self.common).T)
        return columns if self.row_signs is None else columns * self.row_signs
