"""``tf.keras.utils.get_file``: fetch a file into the Keras cache (``~/.keras``)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import zipfile
from urllib.error import HTTPError, URLError
from urllib.request import urlretrieve

from torchflow._src.keras.utils.progbar import Progbar
from torchflow._src.util.api import public


def _extract_archive(file_path, path=".", archive_format="auto") -> bool:
    """Extracts a tar or zip archive into ``path``; True if it was one."""
    if archive_format is None:
        return False
    if archive_format == "auto":
        archive_format = ["tar", "zip"]
    if isinstance(archive_format, str):
        archive_format = [archive_format]
    for kind in archive_format:
        if kind == "tar":
            opener, is_match = tarfile.open, tarfile.is_tarfile
        elif kind == "zip":
            opener, is_match = zipfile.ZipFile, zipfile.is_zipfile
        else:
            continue
        if is_match(file_path):
            with opener(file_path) as archive:
                try:
                    archive.extractall(path)
                except (tarfile.TarError, RuntimeError, KeyboardInterrupt):
                    if os.path.exists(path):
                        if os.path.isfile(path):
                            os.remove(path)
                        else:
                            shutil.rmtree(path)
                    raise
            return True
    return False


def _hash_file(fpath, algorithm="sha256", chunk_size=65535) -> str:
    hasher = hashlib.sha256() if algorithm in ("sha256", "auto") else hashlib.md5()
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535) -> bool:
    """Whether the file at ``fpath`` has the sha256 or md5 ``file_hash``."""
    if algorithm == "sha256" or (algorithm == "auto" and len(file_hash) == 64):
        hasher = "sha256"
    else:
        hasher = "md5"
    return str(_hash_file(fpath, hasher, chunk_size)) == str(file_hash)


def _cache_root(cache_dir):
    if cache_dir is None:
        cache_dir = os.path.join(os.path.expanduser("~"), ".keras")
    root = os.path.expanduser(cache_dir)
    if not os.access(root, os.W_OK):
        root = os.path.join("/tmp", ".keras")
    return root


@public("torchflow.keras.utils")
def get_file(fname, origin, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None):
    """Downloads a file from a URL if it is not already in the cache.

    The file goes to ``cache_dir/cache_subdir/fname`` (``~/.keras/datasets`` by
    default; ``/tmp/.keras`` when that is not writable). An existing file is reused
    unless ``file_hash`` is given and does not match. ``file://`` URLs work like any
    other; an absolute ``fname`` that exists is returned without fetching.

    Args:
      fname: Name of the file (an absolute path saves it there).
      origin: The URL to fetch it from.
      untar: Deprecated in favour of ``extract``: the file is a ``.tar.gz`` whose
        contents are extracted; the return value is the extracted folder.
      md5_hash: Deprecated in favour of ``file_hash``: an md5 hash to verify.
      file_hash: The expected sha256 or md5 hash of the file.
      cache_subdir: Subfolder of the cache folder.
      hash_algorithm: ``"md5"``, ``"sha256"`` or ``"auto"`` (by the hash's length).
      extract: Whether to extract the file as an archive (tar or zip).
      archive_format: ``"auto"``, ``"tar"``, ``"zip"`` or None.
      cache_dir: Where to cache (``~/.keras`` by default).

    Returns:
      The path to the file.

    Raises:
      Exception: ``URL fetch failure on <origin>: <code> -- <reason>`` when the URL
        cannot be fetched, as TF 2.4 raises.
      ValueError: If the downloaded file's hash does not match.
    """
    datadir_base = _cache_root(cache_dir)
    if md5_hash is not None and file_hash is None:
        file_hash = md5_hash
        hash_algorithm = "md5"
    datadir = os.path.join(datadir_base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    if untar:
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)

    download = not os.path.exists(fpath)
    if not download and file_hash is not None and not validate_file(fpath, file_hash,
                                                                    algorithm=hash_algorithm):
        print("A local file was found, but it seems to be incomplete or outdated because the "
              f"{hash_algorithm} file hash does not match the original value of {file_hash} so "
              "we will re-download the data.")
        download = True

    if download:
        print("Downloading data from", origin)
        bar = [None]

        def progress(count, block_size, total_size):
            if bar[0] is None:
                bar[0] = Progbar(total_size if total_size != -1 else None)
            done = count * block_size
            bar[0].update(min(done, total_size) if total_size > 0 else done)

        error_msg = "URL fetch failure on {}: {} -- {}"
        try:
            try:
                urlretrieve(origin, fpath, progress)
            except HTTPError as e:
                raise Exception(error_msg.format(origin, e.code, e.msg)) from None
            except URLError as e:
                raise Exception(error_msg.format(origin, e.errno, e.reason)) from None
        except (Exception, KeyboardInterrupt):
            if os.path.exists(fpath):
                os.remove(fpath)
            raise
        if file_hash is not None and not validate_file(fpath, file_hash, algorithm=hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} file "
                             f"hash does not match the provided value of {file_hash}.")

    if untar:
        if not os.path.exists(untar_fpath):
            _extract_archive(fpath, datadir, archive_format="tar")
        return untar_fpath
    if extract:
        _extract_archive(fpath, datadir, archive_format)
    return fpath
