"""On-disk response cache: one JSON file per answered request, written atomically.

The key is the SHA-256 of a canonical JSON document holding the cache-format version,
everything that shapes the answer (provider model id, identity of what serves it, every
decoding and provider-specific parameter, the full messages, the response format) and the
replicate index (built in :mod:`workflow_scripts.llm.caching.keys`). Entries live at ``<root>/<key[:2]>/<key>.json``; they are written to a
temporary file in the same directory, flushed, fsynced and renamed into place, so parallel
jobs, killed jobs and shared filesystems never see half an entry under the final name.

A file that does not parse, lacks a field, or whose checksum or key does not match is not
trusted: it is moved aside (``*.corrupt-<unix time>``, never deleted) and the request is
asked again.

:class:`Cached` is the wrapper that puts the cache in front of a language model. Between its
miss and its store it holds a per-request lock (an advisory ``flock`` on the request's own lock file
``<root>/.locks/<first 2 hex digits>/<key>.lock``, released by the kernel if the process dies), so two
jobs or two runs that ask the same request at the same time pay for it once: the second finds the
first's answer. The lock is the request's alone: a request that waits minutes for its provider (its
retries) never holds up another one (a lock shared by keys with the same first digits did: a job
stalled for minutes behind another job's retrying requests). On a file system without ``flock`` the
lock falls back to POSIX record locks, or names the directory and the fix
(:mod:`workflow_scripts.llm.caching.file_locks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import AsyncIterator

from workflow_scripts.llm.adaptation import Adaptation
from workflow_scripts.llm.base import Completion, OneOfBatch
from workflow_scripts.llm.caching.file_locks import try_lock, unlock
from workflow_scripts.llm.grouping import GroupAsker, with_call
from workflow_scripts.llm.caching.keys import canonical_json

REQUIRED_FIELDS = ("key", "request", "replicate", "response", "checksum")
LOCK_POLL_S = 0.05
log = logging.getLogger(__name__)


def _checksum(entry: dict) -> str:
    body = {k: v for k, v in entry.items() if k != "checksum"}
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


class ResponseCache:
    """Directory of cached responses (see module docstring).

    Args:
        root: cache directory; created on first write.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        """File that holds (or will hold) the entry of ``key``."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """Return the stored entry of ``key``, or None if absent or untrustworthy."""
        return self.read(key)[0]

    def read(self, key: str, quarantine: bool = True) -> tuple[dict | None, bool]:
        """(the stored entry of ``key`` or None, whether the file there is damaged).

        Args:
            quarantine: move a damaged file aside (a look that must change nothing passes False).
        """
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None, False
        entry = self._verified(text, key)
        if entry is None and quarantine:
            self._quarantine(path)
        return entry, entry is None

    def put(self, key: str, entry: dict) -> dict:
        """Store ``entry`` (without ``key``/``checksum``; they are added) atomically.

        The first writer wins: if two jobs answered the same request at the same time, the
        entry already in place is kept and returned, so every job reports the answer that a
        replay will find. The file is hard-linked into place (atomic, never overwrites); on
        filesystems without hard links it is renamed into place instead.

        Returns:
            The entry now stored under ``key`` (this one, or the one that was there first).

        Raises:
            OSError: if the cache directory cannot be written.
        """
        stored = {**entry, "key": key}
        stored["checksum"] = _checksum(stored)
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(canonical_json(stored))
                handle.flush()
                os.fsync(handle.fileno())
            return self._publish(Path(tmp), path, key, stored)
        finally:
            Path(tmp).unlink(missing_ok=True)

    def _publish(self, tmp: Path, path: Path, key: str, stored: dict) -> dict:
        for _ in range(2):
            try:
                os.link(tmp, path)
                return stored
            except FileExistsError:
                existing = self.get(key)  # a damaged file is moved aside, then we try again
                if existing is not None:
                    return existing
            except OSError:  # no hard links here (some network filesystems)
                os.replace(tmp, path)
                return stored
        os.replace(tmp, path)
        return stored

    @staticmethod
    def _verified(text: str, key: str) -> dict | None:
        try:
            entry = json.loads(text)
        except json.JSONDecodeError:
            return None
        if not isinstance(entry, dict) or any(f not in entry for f in REQUIRED_FIELDS):
            return None
        if entry["key"] != key or entry["checksum"] != _checksum(entry):
            return None
        return entry

    @staticmethod
    def _quarantine(path: Path) -> None:
        target = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        log.warning("cache entry %s is damaged; moved to %s and asking again", path, target.name)
        try:
            os.replace(path, target)
        except FileNotFoundError:
            pass


    @contextlib.asynccontextmanager
    async def lock(self, key: str) -> AsyncIterator[None]:
        """Hold the advisory lock of ``key`` (other processes and coroutines asking it wait)."""
        async with self.locks([key]):
            yield

    @contextlib.asynccontextmanager
    async def locks(self, keys) -> AsyncIterator[None]:
        """Hold the lock of every key, taken in key order (so two holders of overlapping sets never
        wait on each other)."""
        async with contextlib.AsyncExitStack() as stack:
            for key in sorted(set(keys)):
                await stack.enter_async_context(self._key_lock(key))
            yield

    @contextlib.asynccontextmanager
    async def _key_lock(self, key: str) -> AsyncIterator[None]:
        path = self.root / ".locks" / key[:2] / f"{key}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+b") as handle:
            while not try_lock(handle, path):
                await asyncio.sleep(LOCK_POLL_S)
            try:
                yield
            finally:
                unlock(handle, path)


class Cached(OneOfBatch):
    """Wrapper: answers from the response cache, the inner model only on a miss.

    A completion without an answer (a failure) is never stored, so a rerun asks it again;
    refusals and every answer are stored. ``from_cache`` says whether a call was made.

    Replicates asked together (:meth:`complete_batch`) are keyed one by one, each by the parameters
    of its own single request, so a sample answered in a call with ``n`` > 1 is the same cache entry
    a single call would have made: replay and partial reruns stay per replicate, and a rerun asks
    only the replicates that are missing (in one call again).

    An answer the provider gave only once a parameter was removed or lowered
    (:mod:`workflow_scripts.llm.adaptation`) is stored under the key of what was actually asked; a
    request whose own key is not stored looks up those keys next (:meth:`ModelSpec.variant_keys`).

    Requests of one group (``grouped``: a round's identical questions, :mod:`workflow_scripts.llm.rounds`)
    that are missing are answered together in the model's grouping mode, each stored under its own
    key (:class:`~workflow_scripts.llm.grouping.GroupAsker`).

    Args:
        inner: the wrapped model (a provider, or :class:`~workflow_scripts.llm.caching.replay.NoCalls`).
        cache: the response cache.
        grouping: answer a group's missing requests together (False in replay: each is a miss).
    """

    def __init__(self, inner, cache: ResponseCache, grouping: bool = True):
        self.inner, self.cache, self.spec = inner, cache, inner.spec
        self.groups = GroupAsker(self.spec, inner, self._stored, self._stored_entry, self._probe) if grouping else None

    def key(self, request) -> str:
        """Cache key of ``request`` (without asking it)."""
        return self.spec.cache_key(request)

    async def complete_batch(self, requests):
        """The cached completion of each request; the missing ones asked together and stored one by one.

        ``quarantined`` of a completion counts the damaged entries of its request moved aside now.
        """
        keys = [self.key(r) for r in requests]
        results, damaged = {}, dict.fromkeys(keys, 0)
        for key, request in zip(keys, requests):
            self._look(key, request, results, damaged)
        missing = [key for key in keys if key not in results]
        if missing:
            async with self.cache.locks(missing):
                for key, request in zip(keys, requests):  # another job may have answered while we waited
                    self._look(key, request, results, damaged)
                asked = [(key, r) for key, r in zip(keys, requests) if key not in results]
                await self._ask(asked, results)
        return [dataclasses.replace(results[key], quarantined=int(damaged[key])) for key in keys]

    async def _ask(self, asked: list, results: dict) -> None:
        """Ask the missing requests in calls of up to ``capabilities.n``, storing each call's answers
        as soon as it returns: a permanent error raised by one call (after every other call has
        ended) never loses what the others were paid for. A group's go to :attr:`groups`."""
        if self.groups is not None and len(asked) > 1 and asked[0][1].grouped:
            await self.groups.ask(asked, results)
            return
        size = self.spec.samples_per_call

        async def call(chunk):
            answered = with_call([key for key, _ in chunk], await self.inner.complete_batch([r for _, r in chunk]))
            for (key, request), completion in zip(chunk, answered):
                results[key] = self._stored(key, request, completion)

        ended = await asyncio.gather(*(call(asked[i:i + size]) for i in range(0, len(asked), size)),
                                     return_exceptions=True)
        errors = [e for e in ended if isinstance(e, BaseException)]
        if errors:
            raise errors[0]

    def _look(self, key: str, request, results: dict, damaged: dict) -> None:
        """Put the cached completion of ``key`` (else of one of its adapted keys) into ``results`` if
        stored; count a damaged entry."""
        if key in results:
            return
        entry, bad = find(self.cache, self.spec, request, key)
        damaged[key] += int(bad)
        if entry is not None:
            results[key] = completion_of(entry, from_cache=True)

    async def _probe(self, request) -> Completion:
        """The cached completion of one request (asked now if it is missing)."""
        return (await self.complete_batch([request]))[0]

    def _stored_entry(self, key: str, entry: dict) -> Completion:
        """Store an answer made without a call (a draw) under ``key``; its completion."""
        return completion_of(self.cache.put(key, entry), from_cache=False)

    def _stored(self, key: str, request, completion):
        if completion.entry is None:
            return dataclasses.replace(completion, key=key)
        adaptation = Adaptation.of_entry(completion.entry)
        if adaptation:
            key = self.spec.cache_key(request, adaptation)
        stored = self.cache.put(key, completion.entry)
        return dataclasses.replace(completion_of(stored, from_cache=False), retries=completion.retries,
                                   discarded=completion.discarded)


def find(cache: ResponseCache, spec, request, key: str | None = None, quarantine: bool = True) -> tuple[dict | None, bool]:
    """(the stored entry of ``request`` to ``spec``'s model, whether its own key's file is damaged):
    under its own key (``key``, computed if not given), else under one of the keys it has once a
    rejected parameter was removed or lowered (:meth:`ModelSpec.variant_keys`,
    :mod:`workflow_scripts.llm.adaptation`), if the entry there records an adaptation (the key of a
    refused log-probability request is its sampled replicate's: a plain sample stored there is not
    its answer).

    Args:
        quarantine: move damaged files aside (a look that must change nothing passes False).
    """
    entry, bad = cache.read(key or spec.cache_key(request), quarantine)
    for variant in spec.variant_keys(request) if entry is None else ():
        stored = cache.read(variant, quarantine)[0]
        if Adaptation.of_entry(stored):  # an answer stored as adapted; a plain answer under that key is
            return stored, bad           # another request's (a sampled replicate's), never this one's
    return entry, bad


def completion_of(entry: dict, from_cache: bool) -> Completion:
    """A :class:`Completion` from a cache entry (fresh, or stored under ``entry["key"]``)."""
    response, usage = entry["response"], entry.get("usage") or {}
    cost = entry.get("cost_usd")
    return Completion(
        key=entry.get("key", ""), text=response.get("text") or "", finish_reason=response.get("finish_reason"),
        prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens"),
        cost_usd=float(cost) if isinstance(cost, (int, float)) else None, latency_s=entry.get("latency_s"),
        seed=entry["request"]["params"].get("seed"), from_cache=from_cache,
        retries=0 if from_cache else entry.get("retries", 0), entry=entry, logprobs=response.get("logprobs"),
        batch_index=(entry.get("batch") or {}).get("index", 0),
        adaptation=Adaptation.of_entry(entry).note(),
    )
