"""TensorBoard callback: event files read back with TensorBoard's EventAccumulator, with
the same runs and tags real tf.keras writes for the same model and fit."""

import glob
import os

import numpy as np
import pytest
from _callback_models import data, dense_model

import torchflow as tf
from torchflow._src.testing import real_tf


def _read(run_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(run_dir, size_guidance={"tensors": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["tensors"]:
        events = acc.Tensors(tag)
        plugin = acc.SummaryMetadata(tag).plugin_data.plugin_name
        out[tag] = (plugin, [(e.step, e.tensor_proto) for e in events])
    return out


def _fit(lib, logdir, **tb_kwargs):
    x, y = data()
    model = dense_model(lib)
    tb = lib.keras.callbacks.TensorBoard(log_dir=logdir, profile_batch=0, **tb_kwargs)
    hist = model.fit(x, y, batch_size=10, epochs=2, verbose=0, shuffle=False, callbacks=[tb],
                     validation_data=(x[:20], y[:20]))
    return model, hist.history, {os.path.basename(d): _read(d)
                                 for d in sorted(glob.glob(os.path.join(logdir, "*")))}


def _value(proto):
    from tensorboard.util import tensor_util

    return tensor_util.make_ndarray(proto)


def test_epoch_scalars_histograms_and_graph_match_tf_keras(tmp_path):
    model, hist, runs = _fit(tf, str(tmp_path / "tf"), histogram_freq=1)
    real_tf().keras.backend.clear_session()  # layer names restart at "dense", as ours do
    _, _, ref = _fit(real_tf(), str(tmp_path / "ref"), histogram_freq=1)
    assert sorted(runs) == sorted(ref) == ["train", "validation"]

    def tags(r):  # tf.keras 2.21 appends "/histogram"; TF 2.4 wrote "dense/kernel_0"
        return {t.replace("/histogram", ""): (p, [s for s, _ in ev]) for t, (p, ev) in r.items()}

    for run in ("train", "validation"):
        assert tags(runs[run]) == tags(ref[run]), run
    for name in ("loss", "val_loss"):
        run = "validation" if name.startswith("val_") else "train"
        values = [float(_value(p)) for _, p in runs[run]["epoch_loss"][1]]
        np.testing.assert_allclose(values, hist[name], rtol=1e-6)
    kernel = _value(runs["train"]["dense/kernel_0"][1][-1][1])
    assert kernel.shape[1] == 3 and kernel[:, 2].sum() == 3  # (left, right, count) buckets
    assert kernel[0, 0] <= model.get_weights()[0].min() <= model.get_weights()[0].max() <= \
        kernel[-1, 1]
    config = _value(runs["train"]["keras"][1][0][1])
    assert b"Sequential" in config.reshape(-1)[0]


@pytest.mark.parametrize("update_freq,steps", [("batch", [1, 2, 3, 4, 5, 6]), (2, [2, 4, 6]),
                                               (4, [4]), ("epoch", [])])
def test_batch_scalars_follow_update_freq(tmp_path, update_freq, steps):
    _, _, runs = _fit(tf, str(tmp_path), update_freq=update_freq)
    assert [s for s, _ in runs["train"].get("batch_loss", (None, []))[1]] == steps
    assert "batch_loss" not in runs["validation"]
    # Validation results against the number of training batches run (3 per epoch).
    assert [s for s, _ in runs["validation"]["evaluation_loss_vs_iterations"][1]] == [3, 6]


def test_steps_per_execution_counts_every_batch(tmp_path):
    x, y = data(60)
    model = dense_model(tf, steps_per_execution=4)
    model.fit(x, y, batch_size=10, epochs=2, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(str(tmp_path), update_freq="batch")])
    steps = [s for s, _ in _read(str(tmp_path / "train"))["batch_loss"][1]]
    assert steps == [4, 6, 10, 12]  # groups end at batches 4, 6 of each 6-batch epoch


def test_write_images_and_profile_batch_arguments(tmp_path):
    _, _, runs = _fit(tf, str(tmp_path), histogram_freq=1, write_images=True)
    plugin, events = runs["train"]["dense/kernel_0/image"]
    assert plugin == "images" and [s for s, _ in events] == [0, 1]
    width, height = _value(events[0][1])[:2]
    assert (int(width), int(height)) == (3, 1)  # the (3, 1) kernel drawn as a 1x3 image
    for bad in (-1, (3, 1), "a,b,c"):
        with pytest.raises(ValueError):
            tf.keras.callbacks.TensorBoard(str(tmp_path), profile_batch=bad)
