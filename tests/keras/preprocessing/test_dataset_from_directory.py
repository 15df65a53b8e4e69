"""image/text_dataset_from_directory and timeseries_dataset_from_array against tf.keras."""

from __future__ import annotations

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

P = tf.keras.preprocessing


def _ref():
    return real_tf().keras.preprocessing


def _batches(ds):
    out = []
    for b in ds:
        out.append(tuple(np.asarray(t.numpy() if hasattr(t, "numpy") else t)
                         for t in (b if isinstance(b, tuple) else (b,))))
    return out


def _assert_same(ours, theirs, atol=0.0):
    a, b = _batches(ours), _batches(theirs)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            assert u.dtype == v.dtype and u.shape == v.shape
            if u.dtype.kind in "fc":
                np.testing.assert_allclose(u, v, atol=atol)
            else:
                np.testing.assert_array_equal(u, v)


@pytest.fixture
def image_dir(tmp_path):
    rng = np.random.RandomState(0)
    for c, n in (("b_dogs", 3), ("a_cats", 4)):
        (tmp_path / c / "sub").mkdir(parents=True)
        for i in range(n):
            folder = tmp_path / c / ("sub" if i == 0 else "")
            P.image.save_img(str(folder / f"{i}.png"),
                             rng.randint(0, 256, (9 + i, 7, 3)).astype("float32"))
        (tmp_path / c / "skip.txt").write_text("x")
    return tmp_path


@pytest.mark.parametrize("kwargs", [
    {"label_mode": "int", "follow_links": True}, {"label_mode": "categorical", "color_mode": "grayscale"},
    {"label_mode": "binary", "image_size": (5, 6), "interpolation": "nearest"},
    {"label_mode": None, "color_mode": "rgba", "batch_size": 3},
    {"shuffle": True, "seed": 4, "validation_split": 0.3, "subset": "training",
     "batch_size": 100},
    {"shuffle": True, "seed": 4, "validation_split": 0.3, "subset": "validation"},
])
def test_image_dataset_from_directory_matches_tf(image_dir, kwargs, capsys):
    kwargs = {"shuffle": False, "image_size": (8, 8), "batch_size": 2, **kwargs}
    ours = P.image_dataset_from_directory(str(image_dir), **kwargs)
    theirs = _ref().image_dataset_from_directory(str(image_dir), **kwargs)
    assert ours.class_names == theirs.class_names
    if kwargs.get("label_mode", "int") is not None:
        assert ours.class_names == ["a_cats", "b_dogs"]
    # With shuffle=True the file order (NumPy RandomState(seed)) is TF's; the batch-level
    # shuffle buffer is torchflow's own RNG, so one batch holding everything compares.
    if kwargs["shuffle"]:
        def rows(ds):
            return sorted((float(img.sum()), int(lab)) for b in _batches(ds)
                          for img, lab in zip(*b))

        got, want = rows(ours), rows(theirs)
        assert [r[1] for r in got] == [r[1] for r in want]
        np.testing.assert_allclose([r[0] for r in got], [r[0] for r in want], atol=0.5)
    else:
        # Grayscale PNG decoding rounds RGB->gray differently (decode_png, not this
        # module): within one level of 255.
        _assert_same(ours, theirs, atol=1.01 if kwargs.get("color_mode") == "grayscale"
                     else 1e-3)
    out = capsys.readouterr().out
    if kwargs.get("label_mode", "int") is not None:
        assert "Found 7 files belonging to 2 classes." in out
    else:
        assert "Found 7 files." in out  # TF 2.4's line for unlabeled data


def test_image_dataset_errors_match_tf(image_dir):
    cases = [
        {"labels": "bogus"}, {"labels": [0, 1], "class_names": ["a"]},
        {"label_mode": "sparse"}, {"color_mode": "cmyk"}, {"validation_split": 1.5},
        {"validation_split": 0.2}, {"subset": "training", "validation_split": 0.2},
        {"class_names": ["x", "y"]}, {"labels": [0, 1]},
    ]
    for kw in cases:
        with pytest.raises(ValueError):
            _ref().image_dataset_from_directory(str(image_dir), **kw)
        with pytest.raises(ValueError):
            P.image_dataset_from_directory(str(image_dir), **kw)
    # TF 2.4's wording (2.21 shortened it).
    with pytest.raises(ValueError, match="if the labels are inferred from the subdirectory"):
        P.image_dataset_from_directory(str(image_dir), labels=[0, 1], class_names=["a"])


def test_text_dataset_from_directory_matches_tf(tmp_path):
    for c, texts in (("neg", ["bad movie", "awful"]), ("pos", ["great film!", "loved it",
                                                             "fine"])):
        (tmp_path / c).mkdir()
        for i, t in enumerate(texts):
            (tmp_path / c / f"{i}.txt").write_text(t)
    for kw in ({}, {"max_length": 4, "label_mode": "binary"}, {"label_mode": None},
               {"label_mode": "categorical", "batch_size": 1}):
        kw = {"shuffle": False, "batch_size": 2, **kw}
        ours = P.text_dataset_from_directory(str(tmp_path), **kw)
        theirs = _ref().text_dataset_from_directory(str(tmp_path), **kw)
        _assert_same(ours, theirs)
    ours = P.text_dataset_from_directory(str(tmp_path), seed=3, batch_size=10)
    theirs = _ref().text_dataset_from_directory(str(tmp_path), seed=3, batch_size=10)
    (a, la), = _batches(ours)
    (b, lb), = _batches(theirs)
    assert sorted(zip(a.tolist(), la.tolist())) == sorted(zip(b.tolist(), lb.tolist()))


@pytest.mark.parametrize("kwargs", [
    {"sequence_length": 3}, {"sequence_length": 4, "sampling_rate": 2, "batch_size": 3},
    {"sequence_length": 2, "sequence_stride": 3, "start_index": 2, "end_index": 15},
    {"sequence_length": 5, "batch_size": 4},
])
def test_timeseries_dataset_from_array_matches_tf(kwargs):
    data = np.arange(40, dtype="float32").reshape(20, 2)
    targets = np.arange(20) * 10
    ours = _batches(P.timeseries_dataset_from_array(data, targets, **kwargs))
    theirs = _batches(_ref().timeseries_dataset_from_array(data, targets, **kwargs))
    # TF 2.4 counts end - start - sequence_length * sampling_rate + 1 windows; 2.21 fixed
    # that to (sequence_length - 1) * sampling_rate, one more window when sampling_rate > 1.
    flat_ours = [np.concatenate(parts) for parts in zip(*ours)]
    flat_theirs = [np.concatenate(parts) for parts in zip(*theirs)]
    extra = kwargs.get("sampling_rate", 1) - 1
    for a, b in zip(flat_ours, flat_theirs):
        np.testing.assert_array_equal(a, b[:len(b) - extra])
    assert [len(x[0]) for x in ours][:-1] == [kwargs.get("batch_size", 128)] * (len(ours) - 1)
    nolabel = _batches(P.timeseries_dataset_from_array(data, None, **kwargs))
    np.testing.assert_array_equal(np.concatenate([b[0] for b in nolabel]), flat_ours[0])


def test_timeseries_errors_match_tf():
    data = np.zeros((10, 1))
    # TF 2.4's checks and wording (2.21 reworded them and dropped the targets check).
    with pytest.raises(ValueError, match="Expected data and targets to have the same number"):
        P.timeseries_dataset_from_array(data, np.zeros(9), sequence_length=2)
    for args, kw in (((None,), {"start_index": 12}),
                     ((None,), {"start_index": 5, "end_index": 3}),
                     ((None,), {"end_index": 10}), ((None,), {"sampling_rate": 0}),
                     ((None,), {"sequence_stride": 10})):
        with pytest.raises(ValueError):
            _ref().timeseries_dataset_from_array(data, *args, sequence_length=2, **kw)
        with pytest.raises(ValueError, match=" must be "):
            P.timeseries_dataset_from_array(data, *args, sequence_length=2, **kw)
