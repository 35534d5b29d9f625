"""Which weights answer: the part of a served model's cache identity that names its weights.

- A local file (a GGUF): ``sha256:<digest of its bytes>``.
- A local folder (a Hugging Face checkpoint: config, tokenizer, safetensors shards):
  ``sha256-tree:<digest>`` over the sorted lines ``<relative path> <sha256 of the file>`` of every
  file in it (symbolic links followed; the ``.sha256`` files this module leaves beside files it
  hashed are left out). A file of a Hugging Face cache snapshot is a link to
  ``blobs/<sha256 of its bytes>`` when it is stored with Git LFS (the weights): that name is taken as
  its digest instead of reading the file again.
- A name the engine resolves on the cluster (``meta-llama/Llama-3.3-70B-Instruct``): the Hub
  revision it is pinned to, ``revision:<name>@<commit>``; the engine is started with that revision
  (``--revision``), so the name cannot come to mean other weights.

A file's digest is remembered beside it (``<file>.sha256``, keyed by size and modification time,
:func:`workflow_scripts.llm.serving.embedded.file_sha256`) where the folder can be written; a read-only
folder is read again by each process that asks (about 1 GB/s).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from workflow_scripts.llm.serving.embedded import file_sha256

COMMIT = re.compile(r"^[0-9a-f]{40}$")
"""A Hub revision pinned to one commit (a branch or tag name may move)."""
LFS_BLOB = re.compile(r"^[0-9a-f]{64}$")
"""The name of a Hugging Face cache blob stored with Git LFS: the SHA-256 of its bytes."""


def is_local(weights: str) -> bool:
    """True if ``weights`` names a file or folder that exists here (relative to the working directory)."""
    return Path(weights).expanduser().exists()


def weights_identity(weights: str, revision: str | None = None) -> str:
    """The identity of ``weights`` (module docstring).

    Args:
        weights: a local file or folder, or a name the engine resolves.
        revision: the commit a name is pinned to (required for a name; refused for a local path).

    Raises:
        ValueError: a name without a 40-hex commit, or a local path with a revision.
    """
    path = Path(weights).expanduser()
    if path.exists():
        if revision is not None:
            raise ValueError("a revision pins a name the engine resolves; a local path is identified by its digest")
        return f"sha256:{file_sha256(path.resolve())}" if path.is_file() else f"sha256-tree:{tree_sha256(path)}"
    if revision is None or not COMMIT.match(revision):
        raise ValueError(f"{weights!r} is no file or folder here, so it is a name the engine resolves: pin it to "
                         "one commit of its repository (a 40-hex revision)")
    return f"revision:{weights}@{revision}"


def stamp(weights: str) -> tuple:
    """(relative path, size, modification time) of every file of local weights, () for a name: what a
    remembered identity is valid for."""
    path = Path(weights).expanduser()
    if path.is_file():
        return (("", path.stat().st_size, path.stat().st_mtime_ns),)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []
    return tuple((p.relative_to(path).as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in files)


def tree_sha256(folder: Path) -> str:
    """Digest of every file under ``folder`` (module docstring)."""
    lines = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix != ".sha256"):
        lines.append(f"{path.relative_to(folder).as_posix()} {_member_sha256(path)}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _member_sha256(path: Path) -> str:
    if path.is_symlink():
        blob = os.path.basename(os.readlink(path))
        if LFS_BLOB.match(blob):
            return blob
    return file_sha256(path.resolve())
