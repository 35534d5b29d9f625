"""Build a compiled package's wheel once per machine and reuse it in every clone (``make setup``).

llama-cpp-python compiles llama.cpp when it installs (~10 min on 2 cores). A build made with
``-DGGML_NATIVE=OFF`` (portable x86-64) is the same binary in every clone of this machine, so it is
kept in a cache directory outside the clone and installed from there in seconds. The cache entry is
keyed by everything that shapes the binary: the package pin, the CMake arguments, the C and C++
compilers and their versions, CMake's version, the target architecture, the Python tag and the C
library. A change of any of them gives another key and so a fresh build; pip's own wheel cache (keyed
by the source only, so it may hand back a native build) is never used.

Cache directory: ``$LLM_DILEMMAS_WHEEL_CACHE``, else ``$XDG_CACHE_HOME/llm-dilemmas/wheels``, else
``~/.cache/llm-dilemmas/wheels``; one sub-directory per key digest holding ``key.json`` and the wheel.

Usage (stdlib only; run with the interpreter of the target virtual environment)::

    python tools/portable_wheel.py install --pin 'llama-cpp-python[server]==0.3.36' --cmake-args='-DGGML_NATIVE=OFF'
    python tools/portable_wheel.py key --pin ... --cmake-args ...     # print the key and its digest
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Callable

KEY_VERSION = 1  # bump when the key's layout changes


def cache_root(env: dict[str, str] | None = None) -> Path:
    """The wheel cache directory (see the module docstring for the order of the variables)."""
    env = os.environ if env is None else env
    if env.get("LLM_DILEMMAS_WHEEL_CACHE"):
        return Path(env["LLM_DILEMMAS_WHEEL_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "llm-dilemmas" / "wheels"


def _tool_version(command: str) -> str:
    """First line of ``command --version`` (``command`` may carry flags, as $CC can), or 'absent'."""
    try:
        done = subprocess.run([*command.split(), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "absent"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return f"{command}: {lines[0]}" if lines else f"{command}: ?"


def build_key(pin: str, cmake_args: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """Everything that shapes the built binary, as a flat dict of strings.

    ``pin`` is the requirement (``name[extras]==version``), ``cmake_args`` the CMAKE_ARGS string.
    Compilers are the ones CMake picks: ``$CC`` / ``$CXX`` when set, else ``cc`` / ``c++``; compiler
    flags from the environment (CFLAGS, CXXFLAGS, LDFLAGS) are part of the key too.
    """
    env = os.environ if env is None else env
    return {
        "key_version": str(KEY_VERSION),
        "pin": pin,
        "cmake_args": " ".join(cmake_args.split()),
        "cc": _tool_version(env.get("CC", "cc")),
        "cxx": _tool_version(env.get("CXX", "c++")),
        "cmake": _tool_version("cmake"),
        "flags": " | ".join(f"{name}={env.get(name, '')}" for name in ("CFLAGS", "CXXFLAGS", "LDFLAGS")),
        "machine": platform.machine(),
        "platform": sysconfig.get_platform(),
        "python": f"{sys.implementation.name}{sys.version_info.major}{sys.version_info.minor}",
        "libc": " ".join(platform.libc_ver()),
    }


def key_digest(key: dict[str, str]) -> str:
    """16 hex digits of the SHA-256 of the key's canonical JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def cached_wheel(root: Path, key: dict[str, str]) -> Path | None:
    """The wheel stored under ``key``, or None when there is none (or its key file disagrees)."""
    entry = root / key_digest(key)
    try:
        stored = json.loads((entry / "key.json").read_text())
    except (OSError, ValueError):
        return None
    wheels = sorted(entry.glob("*.whl"))
    return wheels[0] if stored == key and len(wheels) == 1 else None


def pip_build(pin: str, cmake_args: str, out: Path) -> Path:
    """Build ``pin``'s wheel from source into ``out`` with CMAKE_ARGS, bypassing pip's caches."""
    env = {**os.environ, "CMAKE_ARGS": cmake_args, "FORCE_CMAKE": "1"}
    name = pin.split("[")[0].split("=")[0]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-cache-dir",
                    "--no-binary", name, "--wheel-dir", str(out), pin], env=env, check=True)
    wheels = sorted(out.glob("*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"pip wheel made {len(wheels)} wheels for {pin} in {out}, expected 1")
    return wheels[0]


def ensure_wheel(root: Path, key: dict[str, str], build: Callable[[Path], Path]) -> tuple[Path, bool]:
    """The cached wheel for ``key``, building it with ``build(tmpdir) -> wheel`` on a miss.

    Returns (wheel path, built now?). The entry is written to a temporary sibling and renamed into
    place, so a killed build never leaves a half-written entry that a later run would trust.
    """
    found = cached_wheel(root, key)
    if found is not None:
        return found, False
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        wheel = build(staging)
        if wheel.parent != staging:
            wheel = Path(shutil.move(str(wheel), staging / wheel.name))
        (staging / "key.json").write_text(json.dumps(key, indent=1, sort_keys=True))
        entry = root / key_digest(key)
        if entry.exists():  # another clone finished first, or a stale entry with another key file
            shutil.rmtree(entry)
        staging.chmod(0o755)  # mkdtemp made it private; the cache serves every clone of the machine
        staging.rename(entry)
        staging = None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return entry / wheel.name, True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["install", "key"])
    parser.add_argument("--pin", required=True, help="requirement, e.g. 'llama-cpp-python[server]==0.3.36'")
    parser.add_argument("--cmake-args", default="", help="the CMAKE_ARGS of the build")
    args = parser.parse_args(argv)
    key = build_key(args.pin, args.cmake_args)
    root = cache_root()
    if args.action == "key":
        print(json.dumps({"digest": key_digest(key), "dir": str(root / key_digest(key)), **key}, indent=1))
        return 0
    start = time.monotonic()
    wheel, built = ensure_wheel(root, key, lambda out: pip_build(args.pin, args.cmake_args, out))
    print(f"{'built' if built else 'reused'} {wheel.name} ({key_digest(key)}) in {time.monotonic() - start:.0f} s",
          file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
                    "--no-cache-dir", str(wheel)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
