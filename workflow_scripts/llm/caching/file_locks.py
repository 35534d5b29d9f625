"""Exclusive locks on files that work where ``flock`` does not (the cache's request locks, the spend ledger).

Many cluster file systems (NFS without ``local_lock``, Lustre or BeeGFS mounted without ``flock``)
answer ``flock`` with ``ENOLCK``, ``EOPNOTSUPP``, ``ENOSYS`` or ``EINVAL``. There the lock falls back
to POSIX record locks (``fcntl.lockf``, served by NFS's lock manager), which such mounts usually
offer; record locks belong to the process, not to the open file, so a lock taken this way is also
held in the process's own table (two coroutines or threads of one job never hold one file at once).
Where neither works, :class:`LockUnavailable` says which directory and what to do.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from pathlib import Path

NO_FLOCK = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL, getattr(errno, "ENOTSUP", -1)})
"""Errors of a file system that offers no lock of that kind."""
_HELD: set[str] = set()
_HELD_LOCK = threading.Lock()


class LockUnavailable(OSError):
    """Neither ``flock`` nor POSIX record locks work in a directory (the message says which and what to do)."""


def try_lock(handle, path: str | os.PathLike) -> bool:
    """Take the exclusive lock of the open file ``handle`` without waiting; True if taken.

    Raises:
        LockUnavailable: the file system of ``path`` offers no lock at all.
    """
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as error:
        if error.errno not in NO_FLOCK:
            raise
    return _try_record_lock(handle, path)


def lock(handle, path: str | os.PathLike) -> None:
    """Take the exclusive lock of ``handle``, waiting for it (a blocking :func:`try_lock`)."""
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        return
    except OSError as error:
        if error.errno not in NO_FLOCK:
            raise
    import time

    while not _try_record_lock(handle, path):
        time.sleep(0.01)


def unlock(handle, path: str | os.PathLike) -> None:
    """Release the lock taken by :func:`try_lock` or :func:`lock`."""
    key = str(Path(path).resolve())
    with _HELD_LOCK:
        record = key in _HELD
        _HELD.discard(key)
    if record:
        fcntl.lockf(handle.fileno(), fcntl.LOCK_UN)
    else:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _try_record_lock(handle, path) -> bool:
    key = str(Path(path).resolve())
    with _HELD_LOCK:
        if key in _HELD:
            return False
        try:
            fcntl.lockf(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):
            return False
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EACCES):
                return False
            raise LockUnavailable(
                error.errno,
                f"cannot lock files in {Path(path).parent} (neither flock nor POSIX record locks work on its file "
                f"system: {os.strerror(error.errno or 0)}); put cache.dir on a local disk or a file system "
                "mounted with locking (NFS: local_lock=flock or a running lockd; Lustre: -o flock)") from error
        _HELD.add(key)
        return True
