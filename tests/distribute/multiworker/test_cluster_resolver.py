"""tf.train.ClusterSpec and the cluster resolvers, against real TF on the same inputs."""

import json

import pytest

from torchflow._src.distribute.cluster_resolver import (
    ClusterResolver,
    SimpleClusterResolver,
    TFConfigClusterResolver,
    UnionResolver,
)
from torchflow._src.distribute.cluster_spec import ClusterSpec
from torchflow._src.testing import real_tf

TF_CONFIGS = [
    {},
    {"cluster": {"worker": ["localhost:12345"]}, "task": {"type": "worker", "index": 0}},
    {"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"],
                 "ps": ["p0:2222"], "evaluator": ["e0:2222"]},
     "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"},
    {"cluster": {"chief": ["c0:2222"], "worker": ["w0:2222"]},
     "task": {"type": "chief", "index": 0}, "environment": "cloud"},
    {"cluster": {"worker": {"1": "w1:1", "3": "w3:3"}}, "task": {"type": "worker", "index": 3}},
    {"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 0},
     "session_master": "grpc://sm:1"},
    {"cluster": {"worker": ["a:1", "b:2"]}},
]


def _resolver_facts(r):
    facts = {"spec": r.cluster_spec().as_dict(), "type": r.task_type, "id": r.task_id,
             "rpc": r.rpc_layer, "env": r.environment}
    try:
        facts["acc"] = dict(r.num_accelerators())
    except Exception as e:  # noqa: BLE001 (the error type is what is compared)
        facts["acc"] = type(e).__name__
    try:
        facts["master"] = r.master()
    except Exception as e:  # noqa: BLE001 (the error type is what is compared)
        facts["master"] = type(e).__name__
    spec = r.cluster_spec()
    for job in spec.jobs:
        for i in spec.task_indices(job):
            facts[f"master:{job}:{i}"] = r.master(job, i)
            facts[f"master:{job}:{i}:rpc"] = r.master(job, i, rpc_layer="grpc+verbs")
    return facts


@pytest.mark.parametrize("cfg", TF_CONFIGS, ids=lambda c: json.dumps(c)[:40])
def test_tfconfig_resolver_matches_real_tf(monkeypatch, cfg):
    rtf = real_tf()
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TF_CONFIG", json.dumps(cfg))
    ours = _resolver_facts(TFConfigClusterResolver())
    theirs = _resolver_facts(rtf.distribute.cluster_resolver.TFConfigClusterResolver())
    assert ours == theirs


def test_tfconfig_overrides_match_real_tf(monkeypatch):
    rtf = real_tf()
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS[2]))
    kw = {"task_type": "ps", "task_id": 0, "rpc_layer": "grpc+x", "environment": "google"}
    assert (_resolver_facts(TFConfigClusterResolver(**kw))
            == _resolver_facts(rtf.distribute.cluster_resolver.TFConfigClusterResolver(**kw)))
    ours, theirs = TFConfigClusterResolver(), rtf.distribute.cluster_resolver.\
        TFConfigClusterResolver()
    for r in (ours, theirs):
        r.task_type, r.task_id = "chief", 0
    assert (ours.task_type, ours.task_id, ours.master()) == \
        (theirs.task_type, theirs.task_id, theirs.master())


def test_tfconfig_is_read_on_every_call(monkeypatch):
    r = TFConfigClusterResolver()
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS[1]))
    assert r.cluster_spec().num_tasks("worker") == 1
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS[2]))
    assert r.cluster_spec().num_tasks("worker") == 2 and r.task_id == 1


def test_bad_tf_config_is_a_value_error(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="TF_CONFIG"):
        TFConfigClusterResolver().cluster_spec()


def test_torchrun_variables_when_tf_config_is_absent(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    monkeypatch.setenv("RANK", "2")
    monkeypatch.setenv("WORLD_SIZE", "3")
    monkeypatch.setenv("MASTER_ADDR", "10.0.0.5")
    monkeypatch.setenv("MASTER_PORT", "29400")
    monkeypatch.setenv("LOCAL_RANK", "0")
    r = TFConfigClusterResolver()
    spec = r.cluster_spec()
    assert spec.jobs == ["worker"] and spec.num_tasks("worker") == 3
    assert spec.task_address("worker", 0) == "10.0.0.5:29400"
    assert (r.task_type, r.task_id) == ("worker", 2)
    # TF_CONFIG's cluster wins when both are present.
    monkeypatch.setenv("TF_CONFIG", json.dumps(TF_CONFIGS[2]))
    assert r.cluster_spec().num_tasks("worker") == 2 and r.task_id == 1


CLUSTERS = [
    {"worker": ["w0:1", "w1:1"], "ps": ["p0:1"]},
    {"worker": {0: "w0:1", 2: "w2:1"}},
    {"b": ["x:1"], "a": {"1": "y:1"}},
    {"worker": []},
    {},
]


@pytest.mark.parametrize("cluster", CLUSTERS, ids=str)
def test_cluster_spec_matches_real_tf(cluster):
    rtf = real_tf()
    ours, theirs = ClusterSpec(cluster), rtf.train.ClusterSpec(cluster)
    assert ours.as_dict() == theirs.as_dict()
    assert ours.jobs == theirs.jobs
    assert repr(ours) == repr(theirs)
    assert bool(ours) == bool(theirs)
    for other in (cluster, theirs.as_dict(), {"x": ["y:1"]}):
        assert (ours == other) == (theirs == other)
        assert (ours != other) == (theirs != other)
    assert ClusterSpec(ours) == ours and rtf.train.ClusterSpec(theirs) == theirs
    assert ClusterSpec(ours).jobs == rtf.train.ClusterSpec(theirs).jobs
    for job in ours.jobs:
        assert ours.num_tasks(job) == theirs.num_tasks(job)
        assert ours.task_indices(job) == theirs.task_indices(job)
        if ours.num_tasks(job):
            assert ours.job_tasks(job) == theirs.job_tasks(job)
        for i in ours.task_indices(job):
            assert ours.task_address(job, i) == theirs.task_address(job, i)


@pytest.mark.parametrize("call,args", [
    ("num_tasks", ("nope",)), ("task_indices", ("nope",)), ("job_tasks", ("nope",)),
    ("task_address", ("nope", 0)), ("task_address", ("worker", 7)),
])
def test_cluster_spec_errors_match_real_tf(call, args):
    rtf = real_tf()
    cluster = CLUSTERS[0]
    with pytest.raises(ValueError) as ours:
        getattr(ClusterSpec(cluster), call)(*args)
    with pytest.raises(ValueError) as theirs:
        getattr(rtf.train.ClusterSpec(cluster), call)(*args)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("bad", [{"w": "abc"}, {"w": 3}, ["a:1"], "worker"])
def test_cluster_spec_type_errors_match_real_tf(bad):
    rtf = real_tf()
    with pytest.raises(TypeError) as ours:
        ClusterSpec(bad)
    with pytest.raises(TypeError) as theirs:
        rtf.train.ClusterSpec(bad)
    assert str(ours.value) == str(theirs.value)


def test_simple_and_union_resolvers_match_real_tf():
    rtf = real_tf()
    c1, c2 = {"worker": ["w0:1", "w1:1"], "ps": ["p0:1"]}, {"worker": ["w2:1"], "chief": ["c:1"]}
    kw = {"master": "grpc://m:1", "task_type": "worker", "task_id": 1,
          "environment": "", "num_accelerators": {"GPU": 2}, "rpc_layer": "grpc"}
    ours = SimpleClusterResolver(ClusterSpec(c1), **kw)
    theirs = rtf.distribute.cluster_resolver.SimpleClusterResolver(rtf.train.ClusterSpec(c1),
                                                                    **kw)
    assert _resolver_facts(ours) == _resolver_facts(theirs)
    ours2 = SimpleClusterResolver(ClusterSpec(c2))
    theirs2 = rtf.distribute.cluster_resolver.SimpleClusterResolver(rtf.train.ClusterSpec(c2))
    u_ours = UnionResolver(ours, ours2)
    u_theirs = rtf.distribute.cluster_resolver.UnionResolver(theirs, theirs2)
    assert _resolver_facts(u_ours) == _resolver_facts(u_theirs)
    sparse = SimpleClusterResolver(ClusterSpec({"worker": {1: "x:1"}}))
    sparse_tf = rtf.distribute.cluster_resolver.SimpleClusterResolver(
        rtf.train.ClusterSpec({"worker": {1: "x:1"}}))
    with pytest.raises(KeyError):
        UnionResolver(ours, sparse).cluster_spec()
    with pytest.raises(KeyError):
        rtf.distribute.cluster_resolver.UnionResolver(theirs, sparse_tf).cluster_spec()
    with pytest.raises(TypeError, match="must be a `tf.train.ClusterSpec`"):
        SimpleClusterResolver({"worker": ["a:1"]})
    with pytest.raises(TypeError):
        ClusterResolver()
