"""ParseCache: parsed estate files kept on disk, so a CLI that loads the same file on every
run parses it once. ``ParseCache(folder).load`` has ``load_path``'s contract; an entry is
used only while the file (and its companions: findings.json, sibling tables), the package and
the estate readers' code are unchanged. A missing, stale, foreign or corrupt entry is a miss,
then rewritten. Paths are checked by the caller (``Workspace.load``) before this sees them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from ..layer.version import __version__
from .dataset import Dataset
from .progress import Phases, ProgressFn

__all__ = ["ParseCache", "default_cache_folder"]

logger = logging.getLogger("cloudg.estate")

#: Bumped when the stored layout changes; older entries are then misses.
CACHE_FORMAT = 1
#: Entries kept; the least recently written beyond this are deleted.
MAX_ENTRIES = 16
#: A folder with more files than this is not cached (fingerprinting it would cost too much).
MAX_FILES = 5000
_SUFFIX = ".dataset.pickle"


def default_cache_folder() -> Path:
    """``$XDG_CACHE_HOME/cloudg-nb``, else ``~/.cache/cloudg-nb``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cloudg-nb"


def _stat_line(path: Path, root: Path) -> list[Any]:
    st = path.stat()
    return [path.relative_to(root).as_posix(), st.st_size, st.st_mtime_ns]


def _companions() -> frozenset[str]:
    """Names of the files a reader may read beside the file it was given: an inventory map
    reads findings.json, a table file reads the other tables of its folder."""
    from .formats import FINDINGS_FILE, INVENTORY_FILE
    from .formats.tabular import TABLES, TABULAR_SUFFIXES

    return frozenset({INVENTORY_FILE, FINDINGS_FILE,
                      *(f"{t}{s}" for t in TABLES for s in TABULAR_SUFFIXES)})


def _files_fingerprint(path: Path) -> list[Any] | None:
    """Size and mtime of ``path`` and of every file a reader may read with it: its
    companions beside a file, everything under a folder. None when there are too many to
    check cheaply or one cannot be read."""
    try:
        if path.is_dir():
            files = []
            for p in path.rglob("*"):  # stop early in a huge tree
                if p.is_file():
                    files.append(p)
                    if len(files) > MAX_FILES:
                        return None
            root = path
        else:
            root = path.parent
            files = [root / name for name in _companions() if (root / name).is_file()]
        if len(files) > MAX_FILES:
            return None
        return [_stat_line(path, root) if path.is_file() else path.name,
                sorted(_stat_line(p, root) for p in files)]
    except (OSError, ValueError):
        return None


def _code_fingerprint() -> list[Any]:
    """The package version and the estate readers' source files (name, size, mtime), so a
    changed reader never serves a parse made by the old one."""
    here = Path(__file__).parent
    lines = []
    for p in sorted(here.rglob("*.py")):
        try:
            st = p.stat()
        except OSError:
            continue
        lines.append([p.relative_to(here).as_posix(), st.st_size, st.st_mtime_ns])
    return [__version__, CACHE_FORMAT, lines]


class ParseCache:
    """Parsed datasets by resolved path, kind and strictness, under ``folder`` (created
    private to the user). Entries are pickles, read only when the current user owns them."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_folder()
        #: What the last ``load`` did: "hit", "miss" or "off" (not cacheable).
        self.last: str | None = None

    def entry_path(self, path: Path, kind: str, strict: bool) -> Path:
        """Where the entry for ``path`` read as ``kind`` lives (one entry per such triple)."""
        ident = json.dumps([str(path), str(kind or "auto").strip().lower(), bool(strict)])
        return self.folder / (hashlib.sha256(ident.encode()).hexdigest()[:32] + _SUFFIX)

    def load(self, path: Path, *, kind: str = "auto", name: str = "dataset",
             progress: ProgressFn | None = None, strict: bool = False) -> Dataset:
        """``load_path(path, ...)``, answered from the cache when the entry is current."""
        from .formats import load_path

        files = _files_fingerprint(path)
        if files is None:
            self.last = "off"
            return load_path(path, kind=kind, name=name, progress=progress, strict=strict)
        key = [str(path), str(kind), bool(strict), files, _code_fingerprint()]
        entry = self.entry_path(path, kind, strict)
        stored = self._read(entry, key)
        if stored is not None:
            self.last = "hit"
            ph = Phases(progress)
            ph.step(0, "reading the cached parse")
            ds = Dataset(*stored["frames"], name=name, source=stored["source"],
                         kind=stored["kind"], normalize=False)
            for attr, value in stored["extras"].items():
                setattr(ds, attr, value)
            ph.step(80, "indexing")
            ds.index  # noqa: B018  (as load_path does: the first query is quick)
            ph.done(f"loaded {len(ds.assets)} assets (cached parse)")
            return ds
        self.last = "miss"
        ds = load_path(path, kind=kind, name=name, progress=progress, strict=strict)
        if _files_fingerprint(path) == files:  # unchanged while it was read
            self._write(entry, key, ds)
        return ds

    def _read(self, entry: Path, key: list[Any]) -> dict[str, Any] | None:
        try:
            st = entry.stat()
        except OSError:
            return None
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            return None  # never unpickle a file someone else wrote
        try:
            with entry.open("rb") as fh:
                stored = pickle.load(fh)
            if not isinstance(stored, dict) or stored.get("key") != json.loads(
                    json.dumps(key)):
                return None  # stale: the file, the package or the readers changed
            if len(stored["frames"]) != 4 or not isinstance(stored["extras"], dict):
                raise ValueError("unexpected layout")
            return stored
        except Exception as exc:  # a corrupt entry is a miss; it is rewritten after the parse
            logger.info("ignoring an unreadable parse-cache entry %s (%s)", entry.name,
                        type(exc).__name__)
            return None

    def _write(self, entry: Path, key: list[Any], ds: Dataset) -> None:
        plain = set(vars(Dataset())) - {"load_report"}  # a reader's report is kept too
        stored = {
            "key": json.loads(json.dumps(key)),
            "frames": (ds.assets, ds.edges, ds.findings, ds.compliance),
            "source": ds.source, "kind": ds.kind,
            "extras": {k: v for k, v in vars(ds).items() if k not in plain},
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    pickle.dump(stored, fh, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, entry)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            self._prune()
        except Exception as exc:  # a cache that cannot be written only costs speed
            logger.info("could not write the parse cache (%s)", type(exc).__name__)

    def _prune(self) -> None:
        entries = sorted(self.folder.glob("*" + _SUFFIX), key=lambda p: p.stat().st_mtime_ns,
                         reverse=True)
        for old in entries[MAX_ENTRIES:]:
            old.unlink(missing_ok=True)
