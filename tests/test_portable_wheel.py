"""tools/portable_wheel.py: llama-cpp-python is built once per machine and reused only under the same key.

The builder is replaced by a fake that writes a named wheel file and counts its calls, so these tests
say exactly when a build happens: never for a key already cached, always for a key that differs in
one field ("change one flag, get a rebuild").
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import portable_wheel as pw  # noqa: E402

PIN = "llama-cpp-python[server]==0.3.36"
PORTABLE = "-DGGML_NATIVE=OFF"


class FakeBuild:
    """Stands in for ``pip wheel``: writes ``llama_cpp_python-<n>.whl`` into the staging directory."""

    def __init__(self):
        self.calls = 0

    def __call__(self, out: Path) -> Path:
        self.calls += 1
        wheel = out / f"llama_cpp_python-0.3.36-build{self.calls}-cp311-cp311-linux_x86_64.whl"
        wheel.write_bytes(b"wheel %d" % self.calls)
        return wheel


@pytest.fixture
def env():
    """A fixed environment: the compilers are this machine's cc / c++ (whatever they are)."""
    return {"PATH": "/usr/bin:/bin"}


def test_the_same_key_is_built_once_and_then_reused(tmp_path, env):
    build = FakeBuild()
    key = pw.build_key(PIN, PORTABLE, env)
    first, built = pw.ensure_wheel(tmp_path, key, build)
    again, built_again = pw.ensure_wheel(tmp_path, pw.build_key(PIN, PORTABLE, env), build)
    assert (built, built_again, build.calls) == (True, False, 1)
    assert again == first and again.read_bytes() == b"wheel 1"


@pytest.mark.parametrize("change", [
    {"cmake_args": "-DGGML_NATIVE=ON"},                 # another CMake flag
    {"cmake_args": "-DGGML_NATIVE=OFF -DGGML_AVX512=ON"},
    {"pin": "llama-cpp-python[server]==0.3.35"},        # another package version
    {"env": {"CC": "clang"}},                            # another compiler
    {"env": {"CFLAGS": "-O0"}},                          # compiler flags from the environment
])
def test_one_changed_flag_gives_a_rebuild(tmp_path, env, change):
    build = FakeBuild()
    pw.ensure_wheel(tmp_path, pw.build_key(PIN, PORTABLE, env), build)
    other = pw.build_key(change.get("pin", PIN), change.get("cmake_args", PORTABLE), {**env, **change.get("env", {})})
    wheel, built = pw.ensure_wheel(tmp_path, other, build)
    assert built and build.calls == 2 and wheel.read_bytes() == b"wheel 2"
    assert len(list(tmp_path.glob("*/key.json"))) == 2  # the first wheel is kept for its own key


def test_the_key_holds_architecture_python_and_cmake(env):
    """The fields a rebuild must follow (version, CMake arguments, compiler, architecture) and those that also
    shape a binary wheel (Python tag, CMake, C library)."""
    key = pw.build_key(PIN, PORTABLE, env)
    assert key["pin"] == PIN and key["cmake_args"] == PORTABLE
    assert key["cc"].startswith("cc: ") and key["cxx"].startswith("c++: ")
    import platform
    assert key["machine"] == platform.machine()
    assert key["python"] == f"{sys.implementation.name}{sys.version_info.major}{sys.version_info.minor}"
    assert key["cmake"].startswith("cmake")


def test_digest_is_the_sha256_of_the_sorted_json():
    key = {"b": "2", "a": "1"}
    assert pw.key_digest(key) == hashlib.sha256(b'{"a": "1", "b": "2"}').hexdigest()[:16]


def test_an_entry_whose_key_file_disagrees_is_rebuilt(tmp_path, env):
    build = FakeBuild()
    key = pw.build_key(PIN, PORTABLE, env)
    wheel, _ = pw.ensure_wheel(tmp_path, key, build)
    (wheel.parent / "key.json").write_text(json.dumps({**key, "cmake_args": "-DGGML_NATIVE=ON"}))
    assert pw.cached_wheel(tmp_path, key) is None
    _, built = pw.ensure_wheel(tmp_path, key, build)
    assert built and build.calls == 2


def test_a_failed_build_leaves_no_entry(tmp_path, env):
    def broken(out: Path) -> Path:
        (out / "half.whl").write_bytes(b"half")
        raise RuntimeError("compiler died")

    key = pw.build_key(PIN, PORTABLE, env)
    with pytest.raises(RuntimeError, match="compiler died"):
        pw.ensure_wheel(tmp_path, key, broken)
    assert pw.cached_wheel(tmp_path, key) is None
    assert list(tmp_path.iterdir()) == []


def test_cache_directory_precedence(tmp_path):
    assert pw.cache_root({"LLM_DILEMMAS_WHEEL_CACHE": str(tmp_path / "w"), "XDG_CACHE_HOME": "/x"}) == tmp_path / "w"
    assert pw.cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "llm-dilemmas" / "wheels"
    assert pw.cache_root({}) == Path.home() / ".cache" / "llm-dilemmas" / "wheels"
