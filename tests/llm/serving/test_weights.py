"""Which weights answer (workflow_scripts/llm/serving/weights.py): digests recomputed here with hashlib."""

from __future__ import annotations

import hashlib

import pytest

from workflow_scripts.llm.serving.weights import weights_identity


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_file_is_the_sha256_of_its_bytes(tmp_path):
    (tmp_path / "m.gguf").write_bytes(b"weights")
    assert weights_identity(str(tmp_path / "m.gguf")) == "sha256:" + sha(b"weights")


def test_a_folder_is_the_digest_of_its_files_in_path_order(tmp_path):
    """Lines '<relative path> <sha256>' sorted by path, joined by newlines (the .sha256 files the digest
    leaves beside files are not part of it); changing one file changes it."""
    folder = tmp_path / "ckpt"
    (folder / "sub").mkdir(parents=True)
    (folder / "config.json").write_bytes(b"{}")
    (folder / "sub" / "model-00001.safetensors").write_bytes(b"shard")
    expected = sha(f"config.json {sha(b'{}')}\nsub/model-00001.safetensors {sha(b'shard')}".encode())
    assert weights_identity(str(folder)) == f"sha256-tree:{expected}"
    assert (folder / "config.json.sha256").exists()  # remembered beside the file, left out of the digest
    assert weights_identity(str(folder)) == f"sha256-tree:{expected}"
    (folder / "config.json").write_bytes(b'{"a": 1}')
    assert weights_identity(str(folder)) != f"sha256-tree:{expected}"


def test_a_hugging_face_snapshot_takes_lfs_blob_names_as_digests(tmp_path):
    """A snapshot file linked to blobs/<64 hex> is not read: its blob's name is its SHA-256 (Git LFS)."""
    blobs, snapshot = tmp_path / "blobs", tmp_path / "snapshots" / ("a" * 40)
    blobs.mkdir()
    snapshot.mkdir(parents=True)
    named = "f" * 64  # not the digest of the bytes: shows that the name, not the content, is taken
    (blobs / named).write_bytes(b"big shard")
    (snapshot / "model.safetensors").symlink_to(blobs / named)
    assert weights_identity(str(snapshot)) == "sha256-tree:" + sha(f"model.safetensors {named}".encode())


def test_a_name_is_its_pinned_revision(tmp_path):
    assert weights_identity("meta-llama/Llama-3.3-70B-Instruct", "c" * 40) == \
        f"revision:meta-llama/Llama-3.3-70B-Instruct@{'c' * 40}"
    with pytest.raises(ValueError, match="pin it to one commit"):
        weights_identity("meta-llama/Llama-3.3-70B-Instruct", "main")
    (tmp_path / "m.gguf").write_bytes(b"x")
    with pytest.raises(ValueError, match="a local path is identified by its digest"):
        weights_identity(str(tmp_path / "m.gguf"), "c" * 40)
