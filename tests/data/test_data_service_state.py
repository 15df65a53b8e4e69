"""The tf.data service in one process: configs and argument checks against TF 2.4, the
dispatcher's state machine (tasks, splits, dropped and returning workers, the journal)
on a fake clock, split sources, and an in-process dispatcher with 2 workers."""

from __future__ import annotations

import collections
import json
import os
import time

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.data import dataset_graph
from torchflow._src.data.service import data_service_ops, splits
from torchflow._src.data.service.dispatcher import DispatcherState
from torchflow._src.testing import real_tf

svc = tf.data.experimental.service


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def _state(tmp_path=None, clock=None):
    return DispatcherState(str(tmp_path) if tmp_path else None, tmp_path is not None,
                           clock or Clock())


def _register(s, splits_n=10, fp="fp"):
    return s.register_dataset(fp, b"pickled", {"s": ["int64", []]}, splits_n, "sig")


# --- configs and argument checks ---------------------------------------------------------


def test_config_fields_and_defaults_are_tf24s():
    # TF 2.4's DispatcherConfig/WorkerConfig (2.21 added fields after these; 2.4 wins)
    d = svc.DispatcherConfig()
    assert d._fields == ("port", "protocol", "work_dir", "fault_tolerant_mode",
                         "job_gc_check_interval_ms", "job_gc_timeout_ms")
    assert tuple(d) == (0, "grpc", None, False, 600000, 300000)
    w = svc.WorkerConfig("localhost:5050")
    assert w._fields == ("dispatcher_address", "worker_address", "port", "protocol",
                         "heartbeat_interval_ms", "dispatcher_timeout_ms")
    assert tuple(w) == ("localhost:5050", "localhost:%port%", 0, "grpc", 30000, 3600000)
    rtf = real_tf()
    ref = rtf.data.experimental.service
    # 2.21 keeps every 2.4 field (and adds others); the defaults they share agree, but
    # for the intervals, where 2.21 writes 0 ("the runtime's default") and 2.4 wrote its
    # defaults out (GC 10 and 5 minutes, heartbeat 30 s, dispatcher timeout 1 hour)
    for ours, theirs in ((d, ref.DispatcherConfig()), (w, ref.WorkerConfig("localhost:5050"))):
        assert set(ours._fields) <= set(theirs._fields)
        for name in ours._fields:
            if getattr(theirs, name) not in (None, 0) or name == "port":
                assert getattr(ours, name) == getattr(theirs, name), name


def test_old_keyword_form_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'port'"):
        svc.DispatchServer(port=5050)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        svc.WorkerServer(port=0, dispatcher_address="localhost:5050")
    with pytest.raises(ValueError, match="Cannot enable fault tolerant mode without "
                                         "configuring a work_dir"):
        svc.DispatchServer(svc.DispatcherConfig(fault_tolerant_mode=True))


@pytest.mark.parametrize("args, message", [
    (("epochs", "grpc://localhost:1"), "epochs is not a valid processing mode"),
    (("parallel_epochs", 5), "service must be a string"),
    (("parallel_epochs", ""), "service must not be empty"),
    (("parallel_epochs", "localhost:1"), "does not begin with a protocol"),
    (("parallel_epochs", "grpc://a://b"), "multiple '://'"),
])
def test_distribute_argument_errors(args, message):
    # TF 2.4's messages (data_service_ops._parse_service / ProcessingMode.validate)
    with pytest.raises(ValueError, match=message):
        svc.distribute(*args)


def test_job_name_checks():
    with pytest.raises(ValueError, match="job_name must be a string"):
        svc.distribute("parallel_epochs", "grpc://localhost:1", job_name=3)
    with pytest.raises(ValueError, match="job_name must not be empty"):
        svc.distribute("parallel_epochs", "grpc://localhost:1", job_name="")


# --- the dispatcher's state machine ---------------------------------------------------


def test_parallel_epochs_one_task_per_worker_and_late_joiners():
    clock = Clock()
    s = _state(clock=clock)
    for a in ("w0", "w1"):
        s.worker_heartbeat(a, a + "-1", 0.2, [])
    ds = _register(s)
    job, client = s.get_or_create_job(ds, "parallel_epochs")
    hb = s.client_heartbeat(client)
    assert sorted(w for _, w in hb["tasks"]) == ["w0", "w1"] and not hb["finished"]
    s.worker_heartbeat("w2", "w2-1", 0.2, [])  # registers later: gets a task of the job
    assert len(s.client_heartbeat(client)["tasks"]) == 3
    for t, _ in s.client_heartbeat(client)["tasks"]:
        s.worker_update(t)
    assert s.client_heartbeat(client)["finished"]


def test_named_job_is_shared_and_checked():
    s = _state()
    s.worker_heartbeat("w0", "i", 0.2, [])
    ds = _register(s)
    j1, c1 = s.get_or_create_job(ds, "parallel_epochs", "shared", "req-1")
    j2, c2 = s.get_or_create_job(ds, "parallel_epochs", "shared", "req-2")
    assert j1 == j2 and c1 != c2
    assert s.get_or_create_job(ds, "parallel_epochs", "shared", "req-1") == (j1, c1)  # retry
    with pytest.raises(tf.errors.InvalidArgumentError, match="different parameters"):
        s.get_or_create_job(ds, "distributed_epoch", "shared")
    s.release_client(c1)
    s.release_client(c2)
    j3, _ = s.get_or_create_job(ds, "parallel_epochs", "shared")  # the old one is over
    assert j3 != j1


def test_distributed_epoch_splits_once_and_dropped_worker_share_redistributed():
    clock = Clock()
    s = _state(clock=clock)
    for a in ("w0", "w1"):
        s.worker_heartbeat(a, a, 0.2, [])
    ds = _register(s, splits_n=100)
    job, client = s.get_or_create_job(ds, "distributed_epoch")
    (t0, _), (t1, _) = sorted(s.client_heartbeat(client)["tasks"], key=lambda t: t[1])
    given = [s.get_split(job, t0, 1), s.get_split(job, t1, 1)]
    assert s.get_split(job, t0, 1) == given[0]  # a retried call: the same range
    clock.t += 0.5
    s.worker_heartbeat("w0", "w0", 0.2, [t0])
    clock.t += 0.6  # w1 silent for 1.1 s > max(3 * 0.2, 1.0)
    assert s.check_workers() == ["w1"]
    assert [t for t, _ in s.client_heartbeat(client)["tasks"]] == [t0]
    seq = 2
    while (r := s.get_split(job, t0, seq)) is not None:
        given.append(r)
        seq += 1
    assert s.get_split(job, t1, 99) is None  # the dropped task gets nothing more
    covered = [i for a, b in given for i in range(a, b)]
    assert sorted(covered) == list(range(100))  # each index handed out once
    assert not s.client_heartbeat(client)["finished"]
    s.worker_update(t0)
    assert s.client_heartbeat(client)["finished"]


def test_silent_consumers_are_garbage_collected():
    clock = Clock()
    s = DispatcherState(None, False, clock, job_gc_timeout_s=5.0)
    s.worker_heartbeat("w0", "i", 0.2, [])
    ds = _register(s)
    _, alive = s.get_or_create_job(ds, "parallel_epochs", "j")
    _, dead = s.get_or_create_job(ds, "parallel_epochs", "j")
    [(t0, _)] = s.client_heartbeat(alive)["tasks"]
    s.client_heartbeat(dead)
    clock.t += 4
    s.client_heartbeat(alive)
    assert s.gc_clients() == []
    clock.t += 2  # dead silent 6 s > 5 s; alive 2 s
    assert s.gc_clients() == [dead]
    assert s.worker_heartbeat("w0", "i", 0.2, [t0])["delete"] == []  # job still consumed
    clock.t += 6
    assert s.gc_clients() == [alive]
    assert s.worker_heartbeat("w0", "i", 0.2, [t0])["delete"] == [t0]  # job over: tasks go


def test_worker_that_comes_back_gets_tasks_again():
    clock = Clock()
    s = _state(clock=clock)
    s.worker_heartbeat("w0", "first", 0.2, [])
    ds = _register(s)
    job, client = s.get_or_create_job(ds, "parallel_epochs")
    [(t0, _)] = s.client_heartbeat(client)["tasks"]
    clock.t += 2
    s.check_workers()
    assert s.num_workers() == 0 and not s.client_heartbeat(client)["finished"]
    r = s.worker_heartbeat("w0", "second", 0.2, [t0])  # a new process on the address
    assert r["delete"] == [t0] and len(r["new"]) == 1 and s.num_workers() == 1
    assert r["new"][0]["task"] != t0


def test_journal_replays_the_state(tmp_path):
    s = _state(tmp_path)
    s.worker_heartbeat("w0", "inc", 0.2, [])
    ds = _register(s, splits_n=50)
    job, client = s.get_or_create_job(ds, "distributed_epoch", "j")
    [(t0, _)] = s.client_heartbeat(client)["tasks"]
    first = s.get_split(job, t0, 1)
    s.close()
    with open(os.path.join(tmp_path, "journal.jsonl"), "a") as f:
        f.write('{"op": "spl')  # a torn last line (a crash mid-write) is ignored
    r = _state(tmp_path)
    assert r.get_split(job, t0, 1) == first  # a retry of a reply lost in the crash
    assert r.dataset(ds)[1] == b"pickled"
    assert r.get_or_create_job(ds, "distributed_epoch", "j")[0] == job
    assert r.client_heartbeat(client)["tasks"] == [[t0, "w0"]]
    nxt = r.get_split(job, t0, 2)
    assert nxt[0] == first[1]  # no range handed out twice across the restart
    assert r.worker_heartbeat("w0", "inc", 0.2, [t0]) == {"new": [], "delete": []}
    entries = [json.loads(x) for x in open(os.path.join(tmp_path, "journal.jsonl"))
               if x.strip().endswith("}")]
    assert entries[0]["op"] == "worker" and {"dataset", "job", "client", "task",
                                             "split"} <= {e["op"] for e in entries}


def test_journal_keeps_each_dataset_encoding(tmp_path):
    s = _state(tmp_path)
    graph = s.register_dataset("fp-g", b"graphdef", {"s": ["int64", []]}, 3, "sig", "graph")
    s.close()
    path = os.path.join(tmp_path, "journal.jsonl")
    with open(path, "a") as f:  # a journal entry written before datasets had a kind
        f.write(json.dumps({"op": "dataset", "id": graph + 1, "fp": "fp-old",
                            "spec": {"s": ["int64", []]}, "splits": None, "sig": "s"}) + "\n")
    with open(os.path.join(tmp_path, "datasets", f"{graph + 1}.pkl"), "wb") as f:
        f.write(b"pickled")
    r = _state(tmp_path)
    assert r.dataset(graph) == ({"fp": "fp-g", "spec": {"s": ["int64", []]}, "splits": 3,
                                 "sig": "sig", "kind": "graph"}, b"graphdef")
    assert r.dataset(graph + 1)[0]["kind"] == "pickle"


# --- split sources ------------------------------------------------------------------------


def test_split_sources():
    ds = tf.data.Dataset.range(3, 40, 2).map(lambda x: x * 10).filter(lambda x: x % 3 == 0)
    assert splits.num_splits(ds) == 19
    ranges = iter([[0, 5], [5, 6], [6, 19]])
    got = [int(x) for x in splits.split_by(splits.portable(ds), lambda: next(ranges, None))]
    assert got == [int(x) for x in ds]
    assert splits.num_splits(tf.data.Dataset.zip((ds, ds))) is None
    gen = tf.data.Dataset.from_generator(lambda: iter([1]), output_types=tf.int32)
    assert splits.num_splits(gen) is None
    with pytest.raises(tf.errors.UnimplementedError, match="split provider"):
        gen.apply(svc.distribute("distributed_epoch", "grpc://localhost:1"))


# --- in process: a dispatcher and 2 workers -------------------------------------------------


@pytest.fixture()
def local_service(monkeypatch):
    monkeypatch.setenv("TORCHFLOW_CLUSTER_TOKEN", "in-process-token")
    d = svc.DispatchServer()
    ws = [svc.WorkerServer(svc.WorkerConfig(d._address, heartbeat_interval_ms=200))
          for _ in range(2)]
    try:
        yield d
    finally:
        for w in ws:
            w._stop()
        d._stop()


def test_graph_op_the_workers_lack_reaches_the_consumer(local_service, monkeypatch):
    # The consumer does not run the graph to check it: an op of a map function that the
    # workers' interpreter has no kernel for fails there, and the consumer gets TF's error.
    ds = tf.data.Dataset.range(4).map(lambda x: x + 1)
    gd = dataset_graph.dataset_graph_def(ds)
    next(n for f in gd.library.function for n in f.node_def if n.op == "AddV2").op = "NoSuchOp"
    forged = gd.SerializeToString()
    monkeypatch.setattr(data_service_ops, "encode_dataset", lambda d: ("graph", forged))
    out = ds.apply(svc.distribute("parallel_epochs", local_service.target))
    with pytest.raises(tf.errors.NotFoundError, match="NoSuchOp"):
        list(out)


def test_in_process_modes_and_errors(local_service):
    d = local_service
    assert d._num_workers() == 2
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6)).map(lambda x: x + 1)
    par = ds.apply(svc.distribute("parallel_epochs", d.target))
    assert collections.Counter(int(x) for x in par) == {i + 1: 2 for i in range(6)}
    dis = ds.apply(svc.distribute("distributed_epoch", d.target, max_outstanding_requests=1))
    assert sorted(int(x) for x in dis) == [1, 2, 3, 4, 5, 6]

    assert int(svc.register_dataset(d.target, ds)) == int(svc.register_dataset(d.target, ds))
    # elements of different shapes (a reply cannot stack them) and of nested structure
    ragged = tf.data.Dataset.range(8).map(lambda x: {"r": tf.range(x), "s": tf.strings.as_string(x)})
    got = sorted((v["r"].numpy().tolist(), v["s"].numpy()) for v in
                 ragged.apply(svc.distribute("distributed_epoch", d.target)))
    assert got == [(list(range(i)), str(i).encode()) for i in range(8)]

    def bad(x):
        if x == 3:
            raise ValueError("boom")
        return x
    failing = tf.data.Dataset.range(5).map(bad).apply(
        svc.distribute("distributed_epoch", d.target))
    with pytest.raises(tf.errors.OpError, match="boom"):
        list(failing)


def test_no_worker_means_unavailable_not_a_hang(monkeypatch):
    monkeypatch.setenv("TORCHFLOW_CLUSTER_TOKEN", "in-process-token")
    monkeypatch.setattr(data_service_ops, "CONSUMER_DEADLINE_S", 1.0)
    d = svc.DispatchServer()
    try:
        ds = tf.data.Dataset.range(3).apply(svc.distribute("parallel_epochs", d.target))
        with pytest.raises(tf.errors.UnavailableError, match="No element"):
            next(iter(ds))
    finally:
        d._stop()


def test_in_process_files_are_split_between_workers(local_service, tmp_path):
    files = []
    for k in range(4):
        files.append(str(tmp_path / f"f{k}.tfrecord"))
        with tf.io.TFRecordWriter(files[-1]) as w:
            for j in range(3):
                w.write(f"{k}-{j}".encode())
    expected = sorted(f"{k}-{j}".encode() for k in range(4) for j in range(3))
    for ds in (tf.data.TFRecordDataset(files),
               tf.data.Dataset.from_tensor_slices(files).interleave(
                   tf.data.TFRecordDataset, cycle_length=2)):
        assert splits.num_splits(ds) == 4  # the file names are the source
        out = ds.apply(svc.distribute("distributed_epoch", local_service.target))
        assert sorted(x.numpy() for x in out) == expected


def test_max_outstanding_requests_bounds_what_the_consumer_holds(local_service):
    ds = tf.data.Dataset.range(200).apply(
        svc.distribute("parallel_epochs", local_service.target, max_outstanding_requests=3))
    it = iter(ds)
    first = int(next(it))
    consumer = it._it  # the service iterator under tf.data's Iterator
    time.sleep(0.5)  # the fetchers would fill an unbounded buffer meanwhile
    assert consumer._results.qsize() <= 3
    rest = [int(x) for x in it]
    assert collections.Counter([first] + rest) == {i: 2 for i in range(200)}


def test_worker_gives_up_on_a_gone_dispatcher_after_dispatcher_timeout(monkeypatch):
    monkeypatch.setenv("TORCHFLOW_CLUSTER_TOKEN", "in-process-token")
    monkeypatch.setattr(data_service_ops, "CONSUMER_DEADLINE_S", 30.0)
    d = svc.DispatchServer()
    w = svc.WorkerServer(svc.WorkerConfig(d._address, heartbeat_interval_ms=200,
                                          dispatcher_timeout_ms=500))
    try:
        it = iter(tf.data.Dataset.range(2000).apply(
            svc.distribute("distributed_epoch", d.target)))
        next(it)
        d._stop()
        t0 = time.monotonic()
        with pytest.raises(tf.errors.UnavailableError):
            for _ in it:
                pass
        assert time.monotonic() - t0 < 10  # the worker's 0.5 s, not the consumer's 30 s
    finally:
        w._stop()
        d._stop()


def test_service_dataset_under_a_strategy_and_fit(local_service):
    x = np.arange(32, dtype=np.float32).reshape(16, 2)
    y = x.sum(axis=1, keepdims=True)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).apply(
        svc.distribute("distributed_epoch", local_service.target)).batch(4)
    strategy = tf.distribute.MirroredStrategy()
    rows = sorted(float(v) for xb, _ in strategy.experimental_distribute_dataset(ds)
                  for v in xb.numpy()[:, 0])
    assert rows == sorted(x[:, 0].tolist())
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, kernel_initializer="zeros",
                                                           input_shape=(2,))])
        model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    loss = model.fit(ds, epochs=1, verbose=0).history["loss"][0]
    np.testing.assert_allclose(loss, float(np.mean(y ** 2)), rtol=1e-5)  # lr 0, zeros
