"""tf.train.ClusterSpec.as_cluster_def() and ClusterSpec(cluster_def) against real TF:
the same bytes, round trips both ways."""

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

CLUSTERS = [
    {"worker": ["localhost:2222"]},
    {"worker": ["w0:2222", "w1:2222"], "ps": ["p0:2222"], "chief": ["c0:2222"]},
    {"worker": {1: "w1:1", 3: "w3:3"}},
    {"worker": {7: "w7:7", 0: "w0:0", 2: "w2:2"}, "evaluator": ["e0:1"], "ps": {5: "p5:5"}},
    {"b": [], "a": {}, "c": ["x:1"]},
    {b"bytes_job": [b"h:1", "h:2"]},
]


@pytest.mark.parametrize("cluster", CLUSTERS, ids=lambda c: repr(c)[:40])
def test_as_cluster_def_bytes_equal_real_tf(cluster):
    rtf = real_tf()
    ours = tf.train.ClusterSpec(cluster).as_cluster_def()
    theirs = rtf.train.ClusterSpec(cluster).as_cluster_def()
    assert ours.DESCRIPTOR.full_name == theirs.DESCRIPTOR.full_name == "tensorflow.ClusterDef"
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert ours.SerializeToString(deterministic=True) == \
        theirs.SerializeToString(deterministic=True)
    # TF parses ours into an equal message and rebuilds an equal ClusterSpec from it.
    parsed = type(theirs).FromString(ours.SerializeToString())
    assert parsed == theirs
    # (Through the def, as TF: a bytes name or address comes back as text.)
    assert rtf.train.ClusterSpec(parsed) == rtf.train.ClusterSpec(theirs)
    assert rtf.train.ClusterSpec(parsed).as_dict() == \
        tf.train.ClusterSpec(tf.train.ClusterSpec(cluster)).as_dict()


@pytest.mark.parametrize("cluster", CLUSTERS, ids=lambda c: repr(c)[:40])
def test_cluster_spec_from_cluster_def_matches_real_tf(cluster):
    rtf = real_tf()
    theirs_def = rtf.train.ClusterSpec(cluster).as_cluster_def()
    ours_def = type(tf.train.ClusterSpec(cluster).as_cluster_def()).FromString(
        theirs_def.SerializeToString())
    ours = tf.train.ClusterSpec(ours_def)
    theirs = rtf.train.ClusterSpec(theirs_def)
    # Jobs in the proto's (sorted) order, as TF keeps them.
    assert ours.jobs == theirs.jobs
    assert ours.as_dict() == theirs.as_dict()
    for job in ours.jobs:
        assert ours.task_indices(job) == theirs.task_indices(job)
        if ours.task_indices(job):  # TF's job_tasks fails on an empty job (max of nothing)
            assert ours.job_tasks(job) == theirs.job_tasks(job)
    # Round trip: the def built back from the def-built spec has the same bytes.
    assert ours.as_cluster_def().SerializeToString() == theirs_def.SerializeToString()
    assert ours.as_cluster_def() == ours_def
    # A real TF message (another pool's ClusterDef) is taken directly, as TF takes its own.
    assert tf.train.ClusterSpec(theirs_def).as_dict() == theirs.as_dict()


def test_cluster_spec_of_cluster_spec_goes_through_the_def_like_tf():
    rtf = real_tf()
    cluster = {"worker": {3: "w3:3", 1: "w1:1"}, "chief": ["c:0"]}
    ours, theirs = tf.train.ClusterSpec(cluster), rtf.train.ClusterSpec(cluster)
    assert ours.jobs == theirs.jobs == ["worker", "chief"]
    assert tf.train.ClusterSpec(ours).jobs == rtf.train.ClusterSpec(theirs).jobs == \
        ["chief", "worker"]
    assert repr(tf.train.ClusterSpec(ours)) == repr(rtf.train.ClusterSpec(theirs))


def test_as_cluster_def_returns_a_fresh_message():
    spec = tf.train.ClusterSpec({"worker": ["a:1"]})
    d = spec.as_cluster_def()
    d.job[0].tasks[0] = "changed:1"
    assert spec.as_cluster_def().job[0].tasks[0] == "a:1"
    assert spec.task_address("worker", 0) == "a:1"


@pytest.mark.parametrize("bad", [["w:1"], "worker", 3, None])
def test_non_cluster_def_type_errors_match_real_tf(bad):
    rtf = real_tf()
    with pytest.raises(TypeError) as theirs:
        rtf.train.ClusterSpec(bad)
    with pytest.raises(TypeError) as ours:
        tf.train.ClusterSpec(bad)
    assert str(ours.value) == str(theirs.value)


def test_cluster_spec_takes_the_public_cluster_def():
    # tf.train.ClusterDef (TensorBoard's copy of TF's schema, as tf.train exports it)
    # builds the same ClusterSpec as real TF's message with the same contents.
    rtf = real_tf()
    cd = tf.train.ClusterDef()
    job = cd.job.add(name="worker")
    job.tasks[2] = "w2:2"
    job.tasks[0] = "w0:0"
    theirs = rtf.train.ClusterSpec(rtf.train.ClusterDef.FromString(cd.SerializeToString()))
    ours = tf.train.ClusterSpec(cd)
    assert ours.as_dict() == theirs.as_dict() == {"worker": {0: "w0:0", 2: "w2:2"}}
    assert ours.as_cluster_def().SerializeToString() == \
        theirs.as_cluster_def().SerializeToString()
