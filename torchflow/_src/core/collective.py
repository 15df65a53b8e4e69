"""The engine's adapter for ``torch.distributed`` collectives between worker processes.

A ``CollectiveGroup`` is one process's member of a group of ``world_size``
processes (one per worker): a TCP key-value store for the rendezvous, a Gloo
process group (CPU tensors, and anything when ``RING`` is asked for) and, with
CUDA, an NCCL one for GPU tensors. Collectives take and return torchflow
``Tensor``s.

Faults never hang: every collective waits at most ``timeout_seconds`` (default
``DEFAULT_TIMEOUT_SECONDS``). Gloo reports a killed peer within milliseconds (its
sockets close); a stalled peer is reported at the timeout. Either way the group
then runs a health check in TF's manner: every member serves a tiny TCP health
endpoint, and the survivors probe each peer's, so the error names the lost task
(``tf.errors.UnavailableError``) or, when every peer answers, reports the timeout
(``tf.errors.DeadlineExceededError``). A failed group stays failed: later
collectives raise at once, as TF's "restart your program to reset" does.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime
import itertools
import os
import socket
import threading
import weakref
from typing import Any

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import AllgatherOptions

from torchflow._src.core import errors, graph_trace, profiler_backend
from torchflow._src.core.tensor import Tensor, wrap

# torch.distributed's own default process-group timeout; TF 2.4 waits forever.
DEFAULT_TIMEOUT_SECONDS = float(os.environ.get("TORCHFLOW_COLLECTIVE_TIMEOUT", "1800"))
_PROBE_SECONDS = 2.0
# A pooled buffer is free when only the pool's tensor (and the query's storage
# handle) refer to its storage.
_FREE_USE_COUNT = 2
_POOL_PER_SIZE = 2
# A pack travels in chunks of this size, each sent while the next is copied in.
_PIPELINE_BYTES = 4 << 20

_REDUCE_OPS = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX,
               "min": dist.ReduceOp.MIN, "prod": dist.ReduceOp.PRODUCT}

# Gloo reduces these dtypes natively; others travel as a wider type.
_GLOO_CAST = {torch.bool: torch.uint8, torch.int16: torch.int32, torch.int8: torch.int32}


def cuda_available() -> bool:
    return torch.cuda.is_available() and dist.is_nccl_available()


class _HealthServer:
    """Answers ``ok`` to every connection, from a daemon thread."""

    def __init__(self, host: str):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0" if host not in ("127.0.0.1", "localhost") else host, 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._serve, daemon=True, name="tf-collective-health").start()

    def _serve(self):
        while not self._closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                conn.sendall(b"ok")
            except OSError:
                pass
            finally:
                conn.close()

    def close(self):
        self._closed = True
        try:
            self.sock.close()
        except OSError:
            pass


def _probe(address: str) -> str | None:
    """None if the health endpoint at ``host:port`` answers, else why not."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=_PROBE_SECONDS) as s:
            s.settimeout(_PROBE_SECONDS)
            if s.recv(2) == b"ok":
                return None
            return "its process closed the connection"
    except ConnectionRefusedError:
        return "its process is gone: connection refused"
    except socket.timeout:
        return f"it did not answer a health check within {_PROBE_SECONDS:g} s"
    except OSError as e:
        return f"it is unreachable: {e}"


_LIVE_GROUPS: weakref.WeakSet = weakref.WeakSet()
_GROUP_KEYS = itertools.count(1)  # TF's group_key of each group this process forms
_NO_EVENT = contextlib.nullcontext()


@atexit.register
def _shutdown_all():
    for g in list(_LIVE_GROUPS):
        g.shutdown()


# Stand-ins for a trace that must not execute anything (host_op's ``dry``): tensors of
# the results' shapes and dtypes, made without running a collective.
def _dry_same(self, values, *args, **kwargs) -> list:
    with graph_trace.paused():
        return [wrap(_torch(v).clone(), _dtype_of(v)) for v in values]


def _dry_gather(self, value, axis: int = 0, **kwargs):
    with graph_trace.paused():
        t = _torch(value)
        t = t.reshape(1) if t.dim() == 0 else t
        return wrap(torch.cat([t] * self.world_size, axis % t.dim()), _dtype_of(value))


class CollectiveGroup:
    """One process's membership in a group of worker processes.

    Args:
      rank: This process's rank (0 hosts the rendezvous store unless
        ``agent_store`` is set).
      world_size: Number of processes.
      task_names: Each rank's TF task name (``/job:worker/replica:0/task:1``),
        used in error messages.
      master_addr, master_port: The rendezvous store's address.
      timeout_seconds: Default bound on every wait (rendezvous and collectives).
      host: The address peers reach this process at (health checks).
      agent_store: The store is hosted by torchrun's elastic agent (every rank
        connects as a client; keys live under the restart attempt's prefix).
      use_nccl: Also create an NCCL group for CUDA tensors.

    Raises:
      DeadlineExceededError: If not every task joined within the timeout.
      UnavailableError: If the process group could not be formed.
    """

    def __init__(self, rank: int, world_size: int, task_names: list[str], *,
                 master_addr: str, master_port: int, timeout_seconds: float | None = None,
                 host: str | None = None, agent_store: bool = False, use_nccl: bool = False):
        self.rank, self.world_size = int(rank), int(world_size)
        self.task_names = list(task_names)
        self.timeout = float(timeout_seconds or DEFAULT_TIMEOUT_SECONDS)
        self._broken: str | None = None
        self._pool: dict = {}
        self._opts: dict = {}
        self._health = None
        self._gloo = self._nccl = None
        self._group_key = next(_GROUP_KEYS)
        self._instance_keys = itertools.count(1)  # the same sequence on every member
        td = datetime.timedelta(seconds=self.timeout)
        try:
            if agent_store:
                attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
                base = dist.TCPStore(master_addr, int(master_port), world_size, False, td)
                self._store = dist.PrefixStore(f"/torchflow/attempt_{attempt}", base)
            else:
                self._store = dist.TCPStore(master_addr, int(master_port), world_size,
                                            self.rank == 0, td, wait_for_workers=False)
        except (RuntimeError, OSError) as e:
            raise errors.UnavailableError(
                None, None, f"Could not reach the collective rendezvous at {master_addr}:"
                f"{master_port} (hosted by {self.task_names[0]}) within {self.timeout:g} s: "
                f"{_first_line(e)}") from None
        my_host = host or _default_host(master_addr)
        self._health = _HealthServer(my_host)
        self._store.set(f"health/{self.rank}", f"{my_host}:{self._health.port}")
        self._peers = self._wait_for_peers()
        opts = dist.ProcessGroupGloo._Options()  # pyright: ignore[reportAttributeAccessIssue] - private torch API, no stub
        opts._timeout = td
        opts._devices = [dist.ProcessGroupGloo.create_device(hostname=my_host)]
        try:
            self._gloo = dist.ProcessGroupGloo(dist.PrefixStore("gloo", self._store),
                                               self.rank, self.world_size, opts)
            if use_nccl and cuda_available():
                nopts = dist.ProcessGroupNCCL.Options()
                nopts._timeout = td
                self._nccl = dist.ProcessGroupNCCL(dist.PrefixStore("nccl", self._store),
                                                   self.rank, self.world_size, nopts)
        except (RuntimeError, OSError) as e:
            self._fail(e, "creating the process group", self.timeout)
        _LIVE_GROUPS.add(self)

    # --- rendezvous and health ----------------------------------------------
    def _wait_for_peers(self) -> dict:
        keys = [f"health/{r}" for r in range(self.world_size)]
        try:
            self._store.wait(keys, datetime.timedelta(seconds=self.timeout))
        except (RuntimeError, OSError):
            missing = [self.task_names[r] for r, k in enumerate(keys)
                       if not self._safe_check(k)]
            self.shutdown()
            raise errors.DeadlineExceededError(
                None, None, f"Timed out after {self.timeout:g} s waiting for the other "
                f"workers to join the collective group; missing: {', '.join(missing)}. Check "
                "TF_CONFIG on every task and that every task was started.") from None
        return {r: self._store.get(k).decode() for r, k in enumerate(keys)}

    def _safe_check(self, key) -> bool:
        try:
            return self._store.check([key])
        except (RuntimeError, OSError):
            return False

    def lost_tasks(self) -> list[tuple[str, str]]:
        """``(task name, reason)`` for every peer whose health endpoint does not answer."""
        out = []
        for r, address in sorted(self._peers.items()):
            if r == self.rank:
                continue
            why = _probe(address)
            if why is not None:
                out.append((self.task_names[r], why))
        return out

    def _fail(self, exc, what: str, timeout: float):
        """Records the failure, aborts the group and raises TF's error."""
        detail = _first_line(exc)
        lost = self.lost_tasks()
        if lost:
            names = "; ".join(f"{n} ({why})" for n, why in lost)
            msg = (f"Collective ops is aborted by: task {names} is unavailable while "
                   f"{what}. The error could be from a previous operation. Restart your "
                   f"program to reset. [Gloo: {detail}]")
            cls = errors.UnavailableError
        elif "timed out" in detail.lower() or "timeout" in detail.lower():
            msg = (f"Collective ops timed out after {timeout:g} s while {what}; every peer "
                   "still answers health checks, so one may be stalled. The error could be "
                   f"from a previous operation. Restart your program to reset. [{detail}]")
            cls = errors.DeadlineExceededError
        else:
            msg = (f"Collective ops is aborted by: {detail} (while {what}). The error could "
                   "be from a previous operation. Restart your program to reset.")
            cls = errors.UnavailableError
        self._broken = msg
        self._broken_cls = cls
        self._abort()
        raise cls(None, None, msg) from None

    def _check(self):
        if self._broken is not None:
            raise self._broken_cls(None, None, self._broken)

    def _abort(self):
        for pg in (self._gloo, self._nccl):
            if pg is not None:
                try:
                    pg.abort()
                except (RuntimeError, AttributeError):
                    pass

    def shutdown(self) -> None:
        """Ends this process's membership (idempotent)."""
        if self._health is not None:
            self._health.close()
            self._health = None
        for pg in (self._gloo, self._nccl):
            if pg is not None:
                try:
                    pg.abort() if self._broken else pg.shutdown()
                except (RuntimeError, AttributeError):
                    pass
        self._gloo = self._nccl = None
        if self._broken is None:
            self._broken = "The collective group was shut down."
            self._broken_cls = errors.FailedPreconditionError
        _LIVE_GROUPS.discard(self)

    # --- collectives --------------------------------------------------------
    def _event(self, op_type: str, tensors: list):
        """The profiler event of one collective (TF's kernel event and stats)."""
        instance_key = next(self._instance_keys)
        if not profiler_backend.active():
            return _NO_EVENT
        nbytes = sum(t.numel() * t.element_size() for t in tensors)
        return profiler_backend.collective(op_type, nbytes, self.world_size,
                                           self._group_key, instance_key)

    def _buffer(self, dtype, device, numel: int) -> torch.Tensor:
        """A flat buffer for one pack: a previous one nothing refers to any more, or new.

        Results are views of their pack's buffer; once the caller drops them (as
        an optimizer drops last step's gradients) the buffer is reused, which
        saves allocating, and page-faulting, fresh memory on every call.
        """
        key = (dtype, device, numel)
        pool = self._pool.setdefault(key, [])
        for buf in pool:
            if torch._C._storage_Use_Count(buf.untyped_storage()._cdata) <= _FREE_USE_COUNT:
                return buf
        buf = torch.empty(numel, dtype=dtype, device=device)
        if len(pool) < _POOL_PER_SIZE:
            pool.append(buf)
        return buf

    def _pg_for(self, t: torch.Tensor, implementation: str) -> Any:
        # Any: torch's stubs declare no collective methods on ProcessGroupGloo/NCCL.
        if t.is_cuda and self._nccl is not None and implementation != "ring":
            return self._nccl
        return self._gloo

    def _run(self, works, what: str, timeout: float):
        try:
            for w in works:
                w.wait(datetime.timedelta(seconds=timeout))
        except (RuntimeError, OSError) as e:
            self._fail(e, what, timeout)

    def _allreduce_options(self, op: str, timeout: float):
        key = (op, timeout)
        opts = self._opts.get(key)
        if opts is None:
            opts = dist.AllreduceOptions()
            opts.reduceOp = _REDUCE_OPS[op]  # pyright: ignore[reportAttributeAccessIssue] - settable; stub says read-only
            opts.timeout = datetime.timedelta(seconds=timeout)
            self._opts[key] = opts
        return opts

    @graph_trace.host_op(dry=_dry_same)
    def all_reduce(self, values: list, op: str = "sum", *, bytes_per_pack: int = 0,
                   timeout_seconds: float | None = None, implementation: str = "auto") -> list:
        """Element-wise reduction of each tensor in ``values`` across the group.

        Tensors of one dtype and device are packed into flat buffers of at most
        ``bytes_per_pack`` bytes (0: one buffer), one collective per buffer.
        The inputs are never modified: each is copied once into its pack's
        buffer (cast there, for a dtype Gloo does not reduce), and the results
        are views of the reduced buffer.

        Returns:
          A list of ``Tensor``s, the reductions, in ``values``' order.
        """
        self._check()
        timeout = float(timeout_seconds or self.timeout)
        ts = [_torch(v) for v in values]
        with self._event("CollectiveReduceV2", ts):
            return self._all_reduce(ts, values, op, bytes_per_pack, timeout, implementation)

    def _all_reduce(self, ts, values, op, bytes_per_pack, timeout, implementation) -> list:
        out: list = [None] * len(ts)
        groups: dict = {}
        for i, t in enumerate(ts):
            groups.setdefault((t.dtype, t.device), []).append(i)
        opts = self._allreduce_options(op, timeout)
        works, bufs = [], []
        for (dtype, device), idx in groups.items():
            for pack in _packs(idx, ts, int(bytes_per_pack or 0)):
                pieces = [ts[i] for i in pack]
                numel = sum(p.numel() for p in pieces)
                pg = self._pg_for(pieces[0], implementation)
                if pg is not self._gloo:
                    flat = self._buffer(dtype, device, numel)
                    _fill(pieces, flat)
                    works.append(pg.allreduce([flat], opts))
                else:
                    # The copy out of the (immutable) inputs overlaps the wire: each
                    # chunk of the pack is all-reduced as soon as it is filled.
                    flat = self._buffer(_GLOO_CAST.get(dtype, dtype), device, numel)
                    works.extend(_fill_and_launch(pieces, flat, pg, opts))
                bufs.append((pack, flat))
        self._run(works, "all-reducing", timeout)
        for pack, buf in bufs:
            off = 0
            for i in pack:
                t = ts[i]
                n = t.numel()
                r = buf[off:off + n].view(t.shape)
                out[i] = wrap(r if r.dtype == t.dtype else r.to(t.dtype), _dtype_of(values[i]))
                off += n
        return out

    @graph_trace.host_op(dry=_dry_same)
    def broadcast(self, values: list, src_rank: int = 0, *,
                  timeout_seconds: float | None = None) -> list:
        """Each tensor in ``values`` as rank ``src_rank`` holds it."""
        self._check()
        timeout = float(timeout_seconds or self.timeout)
        opts = dist.BroadcastOptions()
        opts.rootRank = int(src_rank)
        opts.timeout = datetime.timedelta(seconds=timeout)
        ts = [_torch(v) for v in values]
        op_type = "CollectiveBcastSendV2" if self.rank == src_rank else "CollectiveBcastRecvV2"
        with self._event(op_type, ts):
            return self._broadcast(ts, values, src_rank, opts, timeout)

    def _broadcast(self, ts, values, src_rank, opts, timeout) -> list:
        bufs, works = [], []
        for v in ts:
            t = v.clone(memory_format=torch.contiguous_format)
            send = t.to(_GLOO_CAST[t.dtype]) if t.dtype in _GLOO_CAST else t
            works.append(self._pg_for(send, "auto").broadcast([send], opts))
            bufs.append((send, t.dtype))
        self._run(works, f"broadcasting from {self.task_names[src_rank]}", timeout)
        return [wrap(b.to(dt), _dtype_of(v)) for (b, dt), v in zip(bufs, values)]

    @graph_trace.host_op(dry=_dry_gather)
    def all_gather(self, value, axis: int = 0, *, timeout_seconds: float | None = None):
        """Concatenation along ``axis`` of every rank's ``value`` (sizes along it may differ)."""
        self._check()
        timeout = float(timeout_seconds or self.timeout)
        t = _torch(value)
        with self._event("CollectiveGatherV2", [t]):
            return self._all_gather(t, value, axis, timeout)

    def _all_gather(self, t, value, axis, timeout):
        t = t.reshape(1) if t.dim() == 0 else t
        axis = axis % t.dim()
        sizes = self.all_reduce([_size_vector(t, axis, self.rank, self.world_size)],
                                timeout_seconds=timeout)[0]._t.tolist()
        longest = max(sizes) if sizes else 0
        pad = list(t.shape)
        pad[axis] = longest - t.shape[axis]
        padded = torch.cat([t, t.new_zeros(pad)], axis) if pad[axis] else t.contiguous()
        send = padded.to(_GLOO_CAST[t.dtype]) if t.dtype in _GLOO_CAST else padded
        outs = [torch.empty_like(send) for _ in range(self.world_size)]
        pg = self._pg_for(send, "auto")
        opts = AllgatherOptions()
        opts.timeout = datetime.timedelta(seconds=timeout)
        self._run([pg.allgather([outs], [send], opts)], "all-gathering", timeout)
        pieces = [o.narrow(axis, 0, int(n)).to(t.dtype) for o, n in zip(outs, sizes)]
        return wrap(torch.cat(pieces, axis), _dtype_of(value))

    @graph_trace.host_op
    def barrier(self, *, timeout_seconds: float | None = None) -> None:
        """Waits until every rank reaches the barrier (bounded by the timeout)."""
        self._check()
        timeout = float(timeout_seconds or self.timeout)
        self.all_reduce([wrap(torch.zeros(1))], timeout_seconds=timeout)


def _default_host(master_addr: str) -> str:
    """This machine's address for peers: loopback for a local cluster, else the
    address its host name resolves to."""
    if master_addr in ("127.0.0.1", "localhost"):
        return "127.0.0.1"
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def _first_line(e) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _torch(v) -> torch.Tensor:
    if isinstance(v, Tensor):
        return v._t
    if isinstance(v, torch.Tensor):
        return v
    read = getattr(v, "value", None)
    if read is not None:
        return read()._t
    raise TypeError(f"Collectives take tensors; received {type(v).__name__}")


def _dtype_of(v):
    return getattr(v, "dtype", None) if isinstance(v, Tensor) else None


def _size_vector(t, axis, rank, world):
    v = torch.zeros(world, dtype=torch.int64)
    v[rank] = t.shape[axis] if t.dim() else 1
    return wrap(v)


def _fill(pieces: list, flat: torch.Tensor) -> None:
    """Copies ``pieces`` one after another into ``flat`` (casting to its dtype)."""
    off = 0
    for p in pieces:
        n = p.numel()
        flat[off:off + n].view(p.shape).copy_(p)
        off += n


def _fill_and_launch(pieces: list, flat: torch.Tensor, pg, opts) -> list:
    """Copies ``pieces`` one after another into ``flat`` (casting to its dtype), starting
    ``pg``'s all-reduce of each ``_PIPELINE_BYTES`` chunk of ``flat`` (and of the last,
    shorter one) once it is full; returns the works.

    Every element is reduced once, by one chunk's collective, on every rank alike:
    the sums are the whole pack's all-reduce's. A non-contiguous piece is copied
    whole, in one strided pass (no contiguous copy of it first).
    """
    chunk = max(1, _PIPELINE_BYTES // flat.element_size())
    total = flat.numel()
    if total <= chunk:  # one chunk: no views of views to make
        if len(pieces) == 1:
            flat.view(pieces[0].shape).copy_(pieces[0])
        else:
            _fill(pieces, flat)
        return [pg.allreduce([flat], opts)] if total else []
    launched = filled = 0
    works = []

    def launch_full():
        nonlocal launched
        while filled - launched >= chunk or (filled == total and launched < total):
            end = min(launched + chunk, total)
            works.append(pg.allreduce([flat[launched:end]], opts))
            launched = end

    for p in pieces:
        n = p.numel()
        if not p.is_contiguous():
            flat[filled:filled + n].view(p.shape).copy_(p)
            filled += n
            launch_full()
            continue
        src, p = 0, p.view(-1)
        while src < n:
            take = min(n - src, launched + chunk - filled)
            flat[filled:filled + take].copy_(p[src:src + take])
            filled += take
            src += take
            launch_full()
    return works


def _packs(idx: list, ts: list, bytes_per_pack: int) -> list:
    """Consecutive groups of tensor indices whose total size stays within the pack size."""
    if bytes_per_pack <= 0:
        return [idx]
    packs, cur, size = [], [], 0
    for i in idx:
        n = ts[i].numel() * ts[i].element_size()
        if cur and size + n > bytes_per_pack:
            packs.append(cur)
            cur, size = [], 0
        cur.append(i)
        size += n
    if cur:
        packs.append(cur)
    return packs
