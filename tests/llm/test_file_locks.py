"""Locks on a file system without flock (a common cluster default): the cache's request lock and the
spend ledger fall back to POSIX record locks, and where no lock works they name the directory and the fix
instead of raising a raw OSError at the first cache miss."""

import asyncio
import errno
import fcntl
import json

import pytest

from workflow_scripts.llm.caching import file_locks
from workflow_scripts.llm.spend.budget import SpendLedger
from workflow_scripts.llm.caching.store import ResponseCache

KEY = "ab" + "0" * 62


def no_flock(monkeypatch):
    """flock answers ENOLCK, as on NFS without local_lock."""
    def refuse(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", refuse)


def test_without_flock_the_request_lock_still_excludes_a_second_holder(tmp_path, monkeypatch):
    """Two holders of one key's lock in one process: the second enters only after the first left."""
    no_flock(monkeypatch)
    cache, order = ResponseCache(tmp_path), []

    async def hold(name, delay):
        await asyncio.sleep(delay)
        async with cache.lock(KEY):
            order.append(f"{name} in")
            await asyncio.sleep(0.2)
            order.append(f"{name} out")

    async def both():
        await asyncio.gather(hold("a", 0), hold("b", 0.05))

    asyncio.run(both())
    assert order == ["a in", "a out", "b in", "b out"]


def test_without_flock_the_record_lock_excludes_another_process(tmp_path, monkeypatch):
    """A record lock held by a child process keeps this process out until the child ends."""
    import subprocess
    import sys
    import time

    no_flock(monkeypatch)
    path = tmp_path / "x.lock"
    path.touch()
    child = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time\n"
        f"h = open({str(path)!r}, 'a+b'); fcntl.lockf(h.fileno(), fcntl.LOCK_EX); print('held', flush=True)\n"
        "time.sleep(1.0)\n")], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "held"
    with open(path, "a+b") as handle:
        assert file_locks.try_lock(handle, path) is False
        child.wait()
        time.sleep(0.05)
        assert file_locks.try_lock(handle, path) is True
        file_locks.unlock(handle, path)


def test_without_any_lock_the_error_names_the_directory_and_the_fix(tmp_path, monkeypatch):
    no_flock(monkeypatch)

    def refuse(fd, operation, *args):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "lockf", refuse)
    cache = ResponseCache(tmp_path / "shared")

    async def take():
        async with cache.lock(KEY):
            pass

    with pytest.raises(file_locks.LockUnavailable, match=r"shared/\.locks/ab.*cache\.dir.*local disk"):
        asyncio.run(take())
    with pytest.raises(file_locks.LockUnavailable, match=r"ledger.*cache\.dir"):
        SpendLedger(tmp_path / "ledger").record("k", "m", "openai/gpt-4o", 0.5)


def test_without_flock_the_spend_ledger_records_and_reads(tmp_path, monkeypatch):
    no_flock(monkeypatch)
    ledger = SpendLedger(tmp_path)
    ledger.record("k1", "m", "openai/gpt-4o", 0.25)
    ledger.record("k2", "n", "openai/gpt-4o", 0.5)
    assert ledger.spent() == (0.75, {"m": 0.25, "n": 0.5})
    assert [json.loads(line)["key"] for line in ledger.path.read_text().splitlines()] == ["k1", "k2"]
