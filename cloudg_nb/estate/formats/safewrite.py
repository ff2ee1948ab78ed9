"""Writing export files without following a link: each file is written to a temporary file
in the target folder and moved over the name with ``os.replace``, which replaces whatever
is there (a symlink included) instead of writing through it. Used by the format writers."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = ["replacing"]

# The process umask, read once at import (os.umask can only be read by setting it).
_UMASK = os.umask(0o022)
os.umask(_UMASK)


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it replaces ``path`` atomically
    (a symlink at ``path`` is replaced, never followed); on error it is removed."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)  # the mode a plain open() would have given
    finally:
        os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
