"""TensorFlow's tensor-bundle format: the files of a checkpoint and of a
SavedModel's ``variables/``.

A bundle with prefix ``P`` is

* ``P.index``: an sstable (``sstable.py``) whose first key, the empty string,
  holds a ``BundleHeaderProto`` (shard count, endianness, format version), and
  whose other keys, sorted, hold a ``BundleEntryProto`` each: dtype, shape,
  data shard, offset, size and the masked CRC-32C of the tensor's bytes;
  A partitioned tensor (a ShardedVariable) has a full entry listing its slices
  and one entry per slice under an OrderedCode key (``slice_key``);
* ``P.data-00000-of-00001``: the tensors' bytes back to back, little-endian
  C order; a string tensor is ``varint64`` lengths, the masked CRC-32C of the
  lengths (each as a fixed32), then the bytes.

``BundleWriter`` writes both files under temporary names, flushes them to disk
and renames the data file, then the index, into place, so a reader never sees
an index before the data it names is complete. A bundle that replaces one at
the same prefix first moves the old pair aside (``*.tempstate-prev``: a hard
link of the data, a rename of the index) and removes it once the new index is
in place; a process killed in between leaves no index at the prefix, and
``BundleReader`` then reads the complete old pair, so an interrupted overwrite
never loses the last good bundle. ``BundleReader`` checks every
checksum and raises TensorFlow's errors: ``NotFoundError`` for a missing file,
``DataLossError`` for damaged bytes, ``OutOfRangeError`` for a truncated data
file, ``InvalidArgumentError`` for a bundle of a newer format version (the
statuses TF's ``RestoreV2`` kernel raises; ``tf.train.load_checkpoint`` reports
them as TF's Python reader does, see ``checkpoint_management.translate_error``).
"""

from __future__ import annotations

import os
import shutil
import struct
import time
import uuid

import numpy as np

from torchflow._src.core import dtypes, errors
from torchflow._src.core.proto import tf_tensor_bundle_pb2 as bundle_pb2
from torchflow._src.train import sstable
from torchflow._src.util import versions

VERSION = 1  # kTensorBundleVersion
MIN_CONSUMER = 0
MIN_PRODUCER = 0
INDEX_SUFFIX = ".index"
_CRC_CHUNK = 1 << 24
_PREV = ".tempstate-prev"  # the replaced pair while an overwrite is in flight


def data_filename(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    """``{prefix}.data-{shard:05d}-of-{num_shards:05d}``."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def index_filename(prefix: str) -> str:
    return prefix + INDEX_SUFFIX


def exists(prefix: str) -> bool:
    """Whether a bundle (any format's index) exists at ``prefix`` (or the bundle an
    interrupted overwrite left aside)."""
    index = index_filename(prefix)
    return os.path.exists(index) or os.path.exists(index + _PREV)


def readable_index(prefix: str) -> str:
    """The index file to read for ``prefix``: its own, else the one an interrupted
    overwrite moved aside, else (missing) its own."""
    index = index_filename(prefix)
    if not os.path.exists(index) and os.path.exists(index + _PREV):
        return index + _PREV
    return index


def _raw_crc(raw) -> int:
    """CRC-32C of ``bytes`` or a uint8 array, in chunks (the C extension wants bytes)."""
    crc = 0
    for start in range(0, len(raw), _CRC_CHUNK):
        chunk = raw[start:start + _CRC_CHUNK]
        crc = sstable.crc32c(chunk if isinstance(chunk, bytes) else chunk.tobytes(), crc)
    return crc


def _length_word(n: int) -> bytes:
    """A string length as TF checksums it: a fixed32, a fixed64 past 4 GiB."""
    return struct.pack("<I", n) if n <= 0xFFFFFFFF else struct.pack("<Q", n)


def _string_bytes(array: np.ndarray) -> tuple[list, int]:
    """The pieces of a string tensor's data and their unmasked CRC-32C."""
    items = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.reshape(-1)]
    lengths = bytearray()
    crc = 0
    for item in items:
        sstable.put_varint(lengths, len(item))
        crc = sstable.crc32c(_length_word(len(item)), crc)
    length_crc = struct.pack("<I", sstable.mask(crc))
    crc = sstable.crc32c(length_crc, crc)
    for item in items:
        crc = sstable.crc32c(item, crc)
    return [bytes(lengths), length_crc, *items], crc


def _ordered_num(value: int) -> bytes:
    """TF's OrderedCode WriteNumIncreasing: a length byte, then big-endian bytes."""
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes([len(raw)]) + raw


def _ordered_signed(value: int) -> bytes:
    """TF's OrderedCode WriteSignedNumIncreasing: n bytes whose top n bits are ones,
    then a zero, then the number (a negative number is the complement of ~value's)."""
    if value < 0:
        return bytes(~b & 0xFF for b in _ordered_signed(~value))
    for n in range(1, 9):
        if value < 1 << (7 * n - 1):
            return (((1 << n) - 1) << (7 * n) | value).to_bytes(n, "big")
    raise errors.InvalidArgumentError(None, None, f"Slice bound {value} is too large")


def slice_key(name: str, extents) -> bytes:
    """The index key of one slice of a partitioned tensor (TF's EncodeTensorNameSlice):
    ``extents`` are ``(start, length)`` per dimension, length -1 for the whole dimension."""
    escaped = b"".join(b"\x00\xff" if c == 0 else b"\xff\x00" if c == 0xFF else bytes([c])
                       for c in name.encode("utf-8"))
    out = _ordered_num(0) + escaped + b"\x00\x01" + _ordered_num(len(extents))
    for start, length in extents:
        out += _ordered_signed(start) + _ordered_signed(length)
    return out


def _extents(proto, full_shape) -> list:
    out = []
    for e in proto.extent:
        length = e.length if e.HasField("length") else -1
        out.append((e.start, length))
    out += [(0, -1)] * (len(full_shape) - len(out))
    return out


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _before_index_rename_hook() -> None:
    """Test seam: a crash test slows the save here to kill the process mid-save."""
    delay = os.environ.get("TORCHFLOW_TEST_CKPT_SAVE_DELAY")
    if delay:
        time.sleep(float(delay))


class BundleWriter:
    """Writes one tensor bundle at ``prefix`` (one data shard).

    ``add`` tensors under their keys, then ``finish``; nothing is visible at
    ``prefix`` before ``finish`` has written every byte.
    """

    def __init__(self, prefix: str):
        self._prefix = os.fspath(prefix)
        directory = os.path.dirname(self._prefix)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self._tmp = f".tempstate{uuid.uuid4().hex[:16]}"
        self._data_path = data_filename(self._prefix)
        self._file = open(self._data_path + self._tmp, "wb")  # closed by finish/abort
        self._offset = 0
        self._entries: dict[str, bundle_pb2.BundleEntryProto] = {}

    def add(self, key: str, array) -> None:
        """Appends ``array`` (a NumPy array; ``bytes`` objects for a string tensor).

        Raises:
          InvalidArgumentError: For a duplicate key or a dtype TF cannot save.
        """
        if key in self._entries or key in ("", b""):
            raise errors.InvalidArgumentError(
                None, None, f"Adding duplicate key: {key}" if key else "The empty key is reserved")
        a = np.asarray(array)
        entry = bundle_pb2.BundleEntryProto()
        if a.dtype.kind in "OSU":
            entry.dtype = dtypes.string.as_datatype_enum
            pieces, crc = _string_bytes(a)
        else:
            try:
                dt = dtypes.as_dtype(a.dtype)
            except TypeError:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot save a tensor of dtype {a.dtype} under {key}") from None
            entry.dtype = dt.as_datatype_enum
            if not a.flags.c_contiguous:
                a = a.copy(order="C")  # (np.ascontiguousarray makes a scalar 1-D)
            if a.dtype.byteorder == ">":
                a = a.astype(a.dtype.newbyteorder("<"))
            raw = a.reshape(-1).view(np.uint8)  # written as is: no copy of the whole tensor
            pieces, crc = [raw], _raw_crc(raw)
        entry.shape.SetInParent()  # TF writes the (empty) shape of a scalar too
        for d in a.shape:
            entry.shape.dim.add(size=int(d))
        size = 0
        for piece in pieces:
            self._file.write(piece)
            size += len(piece)
        entry.shard_id = 0
        entry.offset = self._offset
        entry.size = size
        entry.crc32c = sstable.mask(crc)
        self._offset += size
        self._entries[key] = entry

    def add_slices(self, key: str, full_shape, slices) -> None:
        """Adds a partitioned tensor as TF saves one: ``slices`` are ``(offset, array)``
        pieces along axis 0 (a ShardedVariable's shards); the full entry lists them and
        each is stored under its own slice key.

        Raises:
          InvalidArgumentError: For a duplicate key or pieces that do not tile the shape.
        """
        if key in self._entries:
            raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {key}")
        slices = list(slices)
        if len(slices) == 1 and np.shape(slices[0][1]) == tuple(full_shape):
            self.add(key, slices[0][1])  # a slice that is the whole tensor: TF saves it whole
            return
        full = bundle_pb2.BundleEntryProto()
        full.shape.SetInParent()
        for d in full_shape:
            full.shape.dim.add(size=int(d))
        covered = 0
        for offset, array in slices:
            a = np.asarray(array)
            if int(offset) != covered or a.shape[1:] != tuple(full_shape[1:]):
                raise errors.InvalidArgumentError(
                    None, None, f"The slices of {key} do not tile its shape {list(full_shape)}")
            covered += a.shape[0]
            proto = full.slices.add()
            first = proto.extent.add()
            if offset:
                first.start = int(offset)
            first.length = int(a.shape[0])
            for _ in full_shape[1:]:
                proto.extent.add()
            extents = [(int(offset), int(a.shape[0]))] + [(0, -1)] * (len(full_shape) - 1)
            self.add(slice_key(key, extents), a)
            full.dtype = self._entries[slice_key(key, extents)].dtype
        if covered != int(full_shape[0]):
            raise errors.InvalidArgumentError(
                None, None, f"The slices of {key} do not tile its shape {list(full_shape)}")
        self._entries[key] = full

    def finish(self) -> None:
        """Flushes the data, writes the index, and moves both into place."""
        header = bundle_pb2.BundleHeaderProto(num_shards=1)
        header.endianness = bundle_pb2.BundleHeaderProto.LITTLE
        header.version.producer = VERSION
        items = [(b"", header.SerializeToString())]
        def raw(k):
            return k if isinstance(k, bytes) else k.encode("utf-8")

        items += [(raw(k), self._entries[k].SerializeToString())
                  for k in sorted(self._entries, key=raw)]
        table = sstable.build_table(items)
        index_path = index_filename(self._prefix)
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            with open(index_path + self._tmp, "wb") as f:
                f.write(table)
                f.flush()
                os.fsync(f.fileno())
            self._set_aside_old(index_path)
            os.replace(self._data_path + self._tmp, self._data_path)
            _before_index_rename_hook()
            os.replace(index_path + self._tmp, index_path)
        except BaseException:
            self.abort()
            raise
        _fsync_dir(os.path.dirname(self._prefix))
        delete_file(index_path + _PREV)
        delete_file(self._data_path + _PREV)

    def _set_aside_old(self, index_path: str) -> None:
        """Keeps a complete old bundle at this prefix readable until the new one lands."""
        if not os.path.exists(index_path):
            return  # nothing to keep, or an earlier interrupted overwrite already did
        delete_file(index_path + _PREV)
        delete_file(self._data_path + _PREV)
        if os.path.exists(self._data_path):
            try:
                os.link(self._data_path, self._data_path + _PREV)
            except OSError:  # a file system without hard links
                shutil.copyfile(self._data_path, self._data_path + _PREV)
        _fsync_dir(os.path.dirname(self._prefix))
        os.replace(index_path, index_path + _PREV)

    def abort(self) -> None:
        """Closes and removes the temporary files (after a failed save)."""
        self._file.close()
        for path in (self._data_path + self._tmp, index_filename(self._prefix) + self._tmp):
            try:
                os.remove(path)
            except FileNotFoundError:
                pass


def _check_version(header) -> None:
    """TF's CheckVersions for a bundle (its words: "Checkpoint", "TensorFlow <version>")."""
    v = header.version
    upper = f"TensorFlow {versions.VERSION}"
    if v.producer < MIN_PRODUCER:
        raise errors.InvalidArgumentError(
            None, None, f"Checkpoint producer version {v.producer} below min producer "
            f"{MIN_PRODUCER} supported by {upper}.  Please regenerate your checkpoint.")
    if v.min_consumer > VERSION:
        raise errors.InvalidArgumentError(
            None, None, f"Checkpoint min consumer version {v.min_consumer} above current "
            f"version {VERSION} for {upper}.  Please upgrade TensorFlow.")
    if VERSION in v.bad_consumers:
        raise errors.InvalidArgumentError(
            None, None, f"Checkpoint disallows consumer version {VERSION}.  Please upgrade "
            f"TensorFlow: this version is likely buggy.")


class BundleReader:
    """Reads the tensors of the bundle at ``prefix``.

    Raises:
      NotFoundError: No index at ``prefix``.
      DataLossError: The index is damaged or not a tensor bundle.
      InvalidArgumentError: The bundle needs a newer reader.
    """

    def __init__(self, prefix: str):
        self._prefix = os.fspath(prefix)
        index = readable_index(self._prefix)
        self._suffix = _PREV if index.endswith(_PREV) else ""
        try:
            with open(index, "rb") as f:
                raw = f.read()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise errors.NotFoundError(
                None, None, f"Failed to find any matching files for {self._prefix}") from None
        self.entries: dict[str, bundle_pb2.BundleEntryProto] = {}
        self._slice_entries: dict[bytes, bundle_pb2.BundleEntryProto] = {}
        header = None
        try:
            table = sstable.read_table(raw)
        except errors.DataLossError as e:
            if "sstable" in e.message:  # TF's own words for a foreign or cut file
                raise
            raise errors.DataLossError(
                None, None, f"Unable to read file ({index}). Perhaps the file is corrupt or was "
                f"produced by a newer version of TensorFlow with format changes (failed to "
                f"seek to header entry): {e.message}") from None
        for key, value in table:
            try:
                if key == b"":
                    header = bundle_pb2.BundleHeaderProto.FromString(bytes(value))
                elif key[:1] == b"\x00":  # one slice of a partitioned tensor
                    self._slice_entries[key] = bundle_pb2.BundleEntryProto.FromString(bytes(value))
                else:
                    self.entries[key.decode("utf-8")] = \
                        bundle_pb2.BundleEntryProto.FromString(bytes(value))
            except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and UnicodeError alike
                raise errors.DataLossError(
                    None, None, f"Unable to parse the entry {key!r} of {self._prefix}.index: {e}"
                ) from None
        if header is None:
            raise errors.DataLossError(None, None, f"No header entry in {self._prefix}.index")
        _check_version(header)
        if header.endianness != bundle_pb2.BundleHeaderProto.LITTLE:
            raise errors.UnimplementedError(
                None, None, "Reading a bundle with different endianness from the reader is "
                "unsupported.")
        self.num_shards = max(1, header.num_shards)
        self._files: dict[int, object] = {}

    @property
    def prefix(self) -> str:
        return self._prefix

    def contains(self, key: str) -> bool:
        return key in self.entries

    def dtype(self, key: str) -> dtypes.DType:
        return dtypes.as_dtype(self._entry(key).dtype)

    def shape(self, key: str) -> list:
        return [d.size for d in self._entry(key).shape.dim]

    def _entry(self, key: str):
        entry = self.entries.get(key)
        if entry is None:
            raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
        return entry

    def _read(self, entry) -> bytes:
        shard = entry.shard_id
        f = self._files.get(shard)
        if f is None:
            path = data_filename(self._prefix, shard, self.num_shards) + self._suffix
            try:
                f = open(path, "rb")  # kept open for later lookups
            except OSError:
                raise errors.NotFoundError(
                    None, None, f"{path}; No such file or directory") from None
            self._files[shard] = f
        f.seek(entry.offset)
        raw = f.read(entry.size)
        if len(raw) != entry.size:
            raise errors.OutOfRangeError(None, None, "Read less bytes than requested")
        return raw

    def lookup(self, key: str) -> np.ndarray:
        """The NumPy value stored under ``key`` (an object array of bytes for strings).

        Raises:
          NotFoundError: No such key.
          DataLossError: The bytes are damaged (checksum mismatch).
        """
        entry = self._entry(key)
        if entry.slices:
            return self._assemble(key, entry)
        return self._value(key, entry)

    def _assemble(self, key: str, entry) -> np.ndarray:
        """A partitioned tensor, put together from its slices."""
        shape = tuple(d.size for d in entry.shape.dim)
        dt = dtypes.as_dtype(entry.dtype)
        out = np.empty(shape, dtype=object if dt == dtypes.string else dt.as_numpy_dtype)
        filled = 0
        for proto in entry.slices:
            extents = _extents(proto, shape)
            piece_entry = self._slice_entries.get(slice_key(key, extents))
            if piece_entry is None:
                raise errors.NotFoundError(
                    None, None, f"Key {key} slice {extents} not found in checkpoint")
            index = tuple(slice(None) if n < 0 else slice(s, s + n) for s, n in extents)
            piece = self._value(key, piece_entry)
            if out[index].shape != piece.shape:
                raise errors.DataLossError(
                    None, None, f"Invalid slice shape for {key}: {piece.shape} at {extents}")
            out[index] = piece
            filled += piece.size
        if filled != out.size:
            raise errors.UnimplementedError(
                None, None, f"The slices of {key} do not cover its shape {list(shape)}")
        return out

    def _value(self, key: str, entry) -> np.ndarray:
        dt = dtypes.as_dtype(entry.dtype)
        if dt in (dtypes.variant, dtypes.resource):
            raise errors.UnimplementedError(
                None, None, f"Cannot read {key}: a {dt.name} tensor holds a TensorFlow runtime "
                f"object (e.g. a tf.data iterator's state), which torchflow cannot restore")
        shape = tuple(d.size for d in entry.shape.dim)
        raw = self._read(entry)
        if dt == dtypes.string:
            value, crc = self._strings(raw, shape, key)
        else:
            crc = _raw_crc(raw)
            np_dtype = np.dtype(dt.as_numpy_dtype)
            count = int(np.prod(shape, dtype=np.int64))
            if count * np_dtype.itemsize != len(raw):
                raise errors.DataLossError(
                    None, None, f"Invalid size in bundle entry: key {key}; stored size "
                    f"{len(raw)}; expected size {count * np_dtype.itemsize}.")
            value = np.frombuffer(raw, dtype=np_dtype, count=count).reshape(shape)
        if sstable.mask(crc) != entry.crc32c:
            raise errors.DataLossError(
                None, None, f"TensorBundle at {self._prefix} shard {entry.shard_id} "
                f"({entry.size} bytes): Checksum does not match: stored "
                f"{sstable.unmask(entry.crc32c)} vs. calculated on the restored bytes {crc}")
        return value

    def _strings(self, raw: bytes, shape: tuple, key: str):
        n = int(np.prod(shape, dtype=np.int64))
        pos, lengths, crc = 0, [], 0
        try:
            for _ in range(n):
                length, pos = sstable.get_varint(raw, pos, len(raw))
                lengths.append(length)
                crc = sstable.crc32c(_length_word(length), crc)
            (stored,) = struct.unpack_from("<I", raw, pos)
        except (errors.DataLossError, struct.error):
            raise errors.DataLossError(
                None, None, f"Unable to read the string tensor {key}: bad lengths") from None
        if stored != sstable.mask(crc):
            raise errors.DataLossError(
                None, None, f"The length checksum does not match: expected {stored} but "
                f"actual is {sstable.mask(crc)}")
        crc = sstable.crc32c(raw[pos:pos + 4], crc)
        pos += 4
        out = np.empty(n, dtype=object)
        for i, length in enumerate(lengths):
            out[i] = raw[pos:pos + length]
            pos += length
        if pos != len(raw):
            raise errors.DataLossError(None, None, f"Invalid size in bundle entry: key {key}")
        crc = sstable.crc32c(raw[len(raw) - sum(lengths):], crc) if lengths else crc
        return out.reshape(shape), crc

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def delete_file(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def delete(prefix: str) -> None:
    """Removes the bundle at ``prefix`` (its index first, then its data files)."""
    index = index_filename(prefix)
    for path in [index, index + _PREV] + data_files(prefix):
        delete_file(path)
    delete_file(data_filename(prefix) + _PREV)


def data_files(prefix: str) -> list:
    """Every ``{prefix}.data-*`` file (TF's shards and torchflow's older names)."""
    directory = os.path.dirname(prefix) or "."
    start = os.path.basename(prefix) + ".data-"
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names
            if n.startswith(start) and ".tempstate" not in n]
