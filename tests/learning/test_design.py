"""Tests of :mod:`dpreplication.learning.design`: its docstring states that ``X̃ = A + 𝟙cᵀ``, with
``A`` sparse where the ±1 columns are mostly one value, gives ``X̃W``, ``X̃ᵀv`` and
``X̃ᵀdiag(h)X̃`` equal to the dense products up to rounding, and that ``A`` is held dense (``c = 0``)
where it is not sparse."""

import numpy as np
import pytest
from privgene_helpers import rng

from dpreplication.learning.design import BinaryDesign
from dpreplication.learning.models import with_bias


def binary_design(n, rare, continuous, generator):
    """``[X, 1]``: columns of ±1 whose rare value has the given shares, then continuous columns."""
    signs = np.where(generator.random((n, len(rare))) < np.asarray(rare), -1.0, 1.0)
    signs[:, ::2] *= -1  # the common value is +1 in some columns, -1 in the others
    return with_bias(np.hstack([signs, generator.uniform(-1, 1, size=(n, continuous))]))


@pytest.mark.parametrize(
    "rare, continuous, held_sparse",
    [([0.05, 0.1, 0.02, 0.5, 0.08, 0.01], 0, True), ([0.05, 0.1, 0.02, 0.08], 1, True), ([0.5, 0.4], 3, False)],
)
def test_products_equal_the_dense_ones(rare, continuous, held_sparse):
    generator = rng("design", len(rare), continuous)
    dense = binary_design(30_000, rare, continuous, generator)  # past SPARSE_CELLS
    design = BinaryDesign.of(dense)
    assert design.is_sparse == held_sparse
    assert design.signed.tolist() == [True] * len(rare) + [False] * continuous + [True]
    assert np.array_equal(design.columns, dense.T)
    weights, values, row_weights = (
        generator.normal(size=(dense.shape[1], 7)),
        generator.normal(size=30_000),
        generator.random(30_000),
    )
    assert np.allclose(design.dot(weights), dense @ weights, rtol=0, atol=1e-12)
    assert np.allclose(design.dot(weights[:, 0]), dense @ weights[:, 0], rtol=0, atol=1e-12)
    assert np.allclose(design.transpose_dot(values), dense.T @ values, rtol=0, atol=1e-11)
    gram = (dense * row_weights[:, None]).T @ dense
    assert np.allclose(np.triu(design.weighted_gram_upper(row_weights)), np.triu(gram), rtol=0, atol=1e-10)
    block = design.rows(300, 700)
    assert np.allclose(block.dot(weights), dense[300:700] @ weights, rtol=0, atol=1e-12)


@pytest.mark.parametrize("rare", [[0.05, 0.1, 0.02, 0.08, 0.03, 0.01, 0.1], [0.5, 0.4]])
def test_row_signs_multiply_the_rows_and_keep_the_rare_values_sparse(rare):
    """The SVM's rows ``y·[x, 1]``: the labels would make every column half one sign, half the other."""
    generator = rng("signed rows", len(rare))
    dense = binary_design(30_000, rare, 0, generator)
    signs = np.where(generator.random(30_000) < 0.4, -1.0, 1.0)
    design, signed_dense = BinaryDesign.of(dense, signs), dense * signs[:, None]
    assert design.is_sparse == (len(rare) > 2)
    weights, values = generator.normal(size=(dense.shape[1], 3)), generator.normal(size=30_000)
    assert np.array_equal(design.columns, signed_dense.T)
    assert np.allclose(design.dot(weights), signed_dense @ weights, rtol=0, atol=1e-12)
    assert np.allclose(design.dot(weights[:, 1]), signed_dense @ weights[:, 1], rtol=0, atol=1e-12)
    assert np.allclose(design.transpose_dot(values), signed_dense.T @ values, rtol=0, atol=1e-10)
    assert np.allclose(design.rows(5, 900).dot(weights), signed_dense[5:900] @ weights, rtol=0, atol=1e-12)
    row_weights = generator.random(30_000)
    gram = (signed_dense * row_weights[:, None]).T @ signed_dense
    assert np.allclose(np.triu(design.weighted_gram_upper(row_weights)), np.triu(gram), rtol=0, atol=1e-9)


def test_a_small_design_is_held_dense():
    dense = binary_design(1000, [0.05, 0.1, 0.02], 0, rng("small design"))
    design = BinaryDesign.of(dense)
    assert not design.is_sparse and not design.common.any() and np.array_equal(design.rest, dense)


def test_a_tie_takes_plus_one_and_the_common_value_is_the_majority():
    dense = with_bias(np.array([[1.0, -1.0, -1.0], [-1.0, -1.0, -1.0], [1.0, -1.0, 1.0], [-1.0, -1.0, -1.0]]))
    assert BinaryDesign.of(np.repeat(dense, 10_000, axis=0)).common.tolist() == [1.0, -1.0, -1.0, 1.0]
