"""histogram_fixed_width(_bins) against real TF."""

import numpy as np
import pytest

from tests.ops._array_diff import check, check_error
from torchflow._src.testing import rand


@pytest.mark.parametrize("values,rng,nbins", [
    ([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], 5),
    (rand((4, 5), "float64", seed=3), np.array([-2.0, 2.0]), 7),
    (np.array([1, 5, 9, 10, -3], np.int32), np.array([0, 10], np.int32), 4),
    (rand((100,), "float32", seed=4), [-3.0, 3.0], 100),
])
def test_histograms_match_tf(values, rng, nbins):
    check("histogram_fixed_width", values, rng, nbins)
    if np.asarray(values).dtype.kind == "f":  # real TF's _bins fails on ints (its bug)
        check("histogram_fixed_width_bins", values, rng, nbins)
    check("histogram_fixed_width", values, rng, nbins, dtype="int64")


def test_histogram_errors():
    check_error("histogram_fixed_width", [1.0], [0.0, 1.0], 0)
    check_error("histogram_fixed_width", [1.0], [1.0, 1.0], 3)
