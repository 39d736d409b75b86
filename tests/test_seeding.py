import numpy as np

from dpreplication.seeding import generator, seed_sequence


def test_streams_depend_only_on_keys():
    a = generator(1, "paper", "figure", 1.0).random(3)
    b = generator(1, "paper", "figure", 1).random(3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, generator(1, "paper", "figure", 2.0).random(3))
    assert not np.array_equal(a, generator(2, "paper", "figure", 1.0).random(3))


def test_seed_sequence_is_spawned_from_the_root():
    assert seed_sequence(20210515, "x").entropy == 20210515
