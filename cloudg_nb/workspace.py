"""Workspace: the named estate datasets a layer serves, the active one, and change events.

Listeners registered with ``on_change(fn)`` receive ``fn(kind, uri)``; the layer registers
its ``notify_change``. A change to dataset ``name`` (add/replace, mutation such as suppress,
removal, eviction) fires kind ``resource`` for every URI whose content depends on it:
``cloudg://workspace``, ``cloudg://datasets``, ``cloudg://datasets/{name}/summary|assets|
findings`` and, when ``name`` is, becomes or was the active dataset,
``cloudg://findings/summary`` and ``cloudg://compliance``. A new name or a removal also fires
a resources list change (kind ``resources``); ``select`` fires the workspace URIs and the two
active-dataset URIs. Evictions (past CLOUDG_MCP_MAX_DATASETS / CLOUDG_MCP_MAX_ASSETS) are
recorded for the caller inside ``with workspace.evictions() as names``. Paths are checked
against allowed roots (symlinks resolved); writes go only under the output root. A failed
load leaves the workspace as it was.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import re
import threading
import weakref
from collections.abc import Callable, Hashable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import CloudGConfig
from .estate.errors import (
    DatasetNameConflictError,
    NoDatasetError,
    ReferenceNotFoundError,
)
from .layer.errors import AccessDeniedError, InvalidArgumentsError
from .layer.listeners import Listeners

if TYPE_CHECKING:
    from .estate.dataset import Dataset
    from .estate.parse_cache import ParseCache
    from .estate.progress import ProgressFn
    from .layer.layer import ChangeListener

__all__ = ["Workspace", "NoDatasetError", "ReferenceNotFoundError", "DatasetNameConflictError",
           "WORKSPACE_URI", "DATASETS_URI", "FINDINGS_SUMMARY_URI", "COMPLIANCE_URI",
           "ACTIVE_URIS", "summary_uri", "dataset_uris", "root_label", "NAME_PATTERN"]

logger = logging.getLogger("cloudg.workspace")

#: Limits of a usable path (as on Linux): longer ones fail in the OS with messages that
#: would echo them.
MAX_PATH_CHARS = 4096
MAX_NAME_CHARS = 255

WORKSPACE_URI = "cloudg://workspace"
DATASETS_URI = "cloudg://datasets"
FINDINGS_SUMMARY_URI = "cloudg://findings/summary"
COMPLIANCE_URI = "cloudg://compliance"
#: The static resources that follow the active dataset.
ACTIVE_URIS = (FINDINGS_SUMMARY_URI, COMPLIANCE_URI)
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


#: The eviction record of the current call (``Workspace.evictions``); context-local, so
#: concurrent calls in other threads or tasks never see each other's evictions.
_EVICTED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "cloudg_evicted", default=None)


def root_label(root: Path) -> str:
    """How errors name an allowed root: relative to the server's working directory
    (``.``, ``data/estates``) or, outside it, ``<server>/`` and its folder name; never the
    absolute path, which tells remote callers about the server's file system."""
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        cwd = None
    if cwd is not None and (root == cwd or root.is_relative_to(cwd)):
        return root.relative_to(cwd).as_posix() or "."
    return f"<server>/{root.name}" if root.name else "<server>"


def summary_uri(name: str) -> str:
    return f"cloudg://datasets/{name}/summary"


def dataset_uris(name: str) -> tuple[str, str, str]:
    """The resources showing one dataset: its summary, assets table and findings table."""
    return (summary_uri(name), f"cloudg://datasets/{name}/assets",
            f"cloudg://datasets/{name}/findings")


class Workspace:
    """Holds datasets by name (load order kept), one of them active, and fires change events."""

    def __init__(
        self,
        config: CloudGConfig | None = None,
        *,
        allowed_roots: Sequence[str | os.PathLike[str]] | None = None,
        output_dir: str | os.PathLike[str] | None = None,
        max_datasets: int | None = None,
    ) -> None:
        self.config = config or CloudGConfig()
        if allowed_roots is not None:
            self.config.allowed_roots = [Path(r) for r in allowed_roots]
        if output_dir is not None:
            self.config.output_dir = Path(output_dir)
        if max_datasets is not None:
            self.config.max_datasets = max_datasets
        self.datasets: dict[str, Dataset] = {}
        self.active: str | None = None
        self._listeners = Listeners(logger, "workspace listener")
        self._unsubscribe: dict[str, Callable[[], None]] = {}
        self._lock = threading.RLock()
        #: Optional ``load_path`` stand-in that keeps parses (``estate.parse_cache``); it sees
        #: only paths ``resolve_path`` accepted, so it never widens what may be read.
        self.parse_cache: ParseCache | None = None

    def __repr__(self) -> str:
        return f"Workspace(datasets={list(self.datasets)}, active={self.active!r})"

    def __contains__(self, name: object) -> bool:
        return name in self.datasets

    def __len__(self) -> int:
        return len(self.datasets)

    # -- events --------------------------------------------------------------------------

    def on_change(self, fn: ChangeListener) -> Callable[[], None]:
        """Call ``fn(kind, uri)`` on every change; returns a function that unsubscribes."""
        return self._listeners.add(fn)

    def notify(self, kind: str, uri: str | None = None) -> None:
        """Tell every listener that ``kind`` (and ``uri``) changed; a failing one is skipped."""
        self._listeners.emit(kind, uri)

    def _emit(self, events: list[tuple[str, str | None]]) -> None:
        for kind, uri in events:
            self.notify(kind, uri)

    @staticmethod
    def _changed(name: str, *, active: bool) -> list[tuple[str, str | None]]:
        """Dataset ``name`` changed: the workspace URIs, its own three resources and, when
        ``active`` (it is, becomes or was the active one), the active-dataset resources."""
        uris = [WORKSPACE_URI, DATASETS_URI, *dataset_uris(name)]
        if active:
            uris.extend(ACTIVE_URIS)
        return [("resource", uri) for uri in uris]

    @classmethod
    def _removed(cls, name: str, *, active: bool) -> list[tuple[str, str | None]]:
        return [("resources", None), *cls._changed(name, active=active)]

    # -- names ---------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Dataset names in load order."""
        with self._lock:
            return list(self.datasets)

    @staticmethod
    def check_name(name: str) -> str:
        """``name`` if it matches ``^[A-Za-z0-9_.-]{1,64}$``; InvalidArgumentsError otherwise."""
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise InvalidArgumentsError(
                "Dataset names use 1-64 letters, digits, '_', '.' or '-'.",
                data={"field": "name", "pattern": NAME_PATTERN.pattern})
        return name

    @staticmethod
    def name_from(text: str) -> str:
        """A valid dataset name derived from free text (e.g. a file name)."""
        cleaned = _NAME_CHARS.sub("-", str(text)).strip("-.") or "dataset"
        return cleaned[:64]

    def unique_name(self, base: str) -> str:
        """``base`` if free, else ``base-2``, ``base-3`` ... (kept within 64 characters)."""
        base = self.name_from(base)
        with self._lock:
            if base not in self.datasets:
                return base
            k = 2
            while True:
                suffix = f"-{k}"
                candidate = base[: 64 - len(suffix)] + suffix
                if candidate not in self.datasets:
                    return candidate
                k += 1

    # -- datasets ------------------------------------------------------------------------

    def identifier_sources(self) -> list[tuple[Hashable, str, Callable[[], list[str]]]]:
        """(key, entity, values) per dataset version: identifiers a pseudonymising policy
        must also find as bare words — the accounts: GCP project ids and AWS account ids
        (the privacy vault reads them once per version; see ``Vault.add_source``)."""
        with self._lock:
            found = list(self.datasets.values())
        out: list[tuple[Hashable, str, Callable[[], list[str]]]] = []
        for ds in found:
            key = (weakref.ref(ds), ds.version)
            out.append(((*key, "gcp"), "gcp_project", partial(_accounts, ds, "GCP")))
            out.append(((*key, "aws"), "aws_account_id", partial(_accounts, ds, "AWS")))
        return out

    def get(self, name: str | None = "") -> Dataset:
        """The dataset ``name``; the active one for ``""``/None. NoDatasetError otherwise."""
        with self._lock:
            if not name:
                if self.active is None:
                    raise NoDatasetError()
                return self.datasets[self.active]
            ds = self.datasets.get(name)
            if ds is None:
                from .estate.models import close_matches

                if not self.datasets:
                    raise NoDatasetError()
                raise NoDatasetError(
                    "No dataset has that name; list_datasets shows the loaded ones.",
                    data={"field": "dataset",
                          "close_matches": close_matches(str(name), self.datasets),
                          "available": list(self.datasets)})
            return ds

    def add(self, dataset: Dataset, name: str | None = None, *, activate: bool = False,
            replace: bool = False) -> Dataset:
        """Add ``dataset`` as ``name`` (default: its own name).

        An existing name is refused (DatasetNameConflictError, data {existing, suggested})
        unless ``replace``; a replacement's version continues from the old one so cursors
        go stale. Activates when asked or when nothing is active. Past ``max_datasets`` the
        oldest non-active dataset is evicted.
        """
        name = self.check_name(name if name is not None else dataset.name)
        budget = int(self.config.max_total_assets or 0)
        if budget and len(dataset.assets) > budget:
            raise InvalidArgumentsError(
                f"The dataset has more assets than the workspace may hold ({budget}); load a "
                "smaller estate or raise CLOUDG_MCP_MAX_ASSETS.",
                data={"assets": len(dataset.assets), "max_total_assets": budget})
        events: list[tuple[str, str | None]] = []
        with self._lock:
            old = self.datasets.get(name)
            if old is not None and not replace:
                raise DatasetNameConflictError(name, self.unique_name(name))
            if any(d is dataset for n, d in self.datasets.items() if n != name):
                dataset = dataset.copy(name)
            dataset.name = name
            if old is not None:
                dataset.version = max(dataset.version, old.version + 1)
                self._detach(name)
                del self.datasets[name]
            else:
                events.append(("resources", None))
            self.datasets[name] = dataset
            self._unsubscribe[name] = dataset.on_change(partial(self._on_dataset_mutation, name))
            if activate or self.active is None:
                self.active = name
            events.extend(self._changed(name, active=self.active == name))
            events.extend(self._evict(protect=name))
        self._emit(events)
        return dataset

    @staticmethod
    @contextlib.contextmanager
    def evictions() -> Iterator[list[str]]:
        """Collect the names of datasets evicted inside the block (in eviction order), so a
        tool can say in its result what its load or snapshot pushed out."""
        names: list[str] = []
        token = _EVICTED.set(names)
        try:
            yield names
        finally:
            _EVICTED.reset(token)

    def _evict(self, protect: str | None = None) -> list[tuple[str, str | None]]:
        """Evict the oldest datasets that are neither active nor ``protect`` (the one just
        added) while past ``max_datasets`` or the asset budget."""
        events: list[tuple[str, str | None]] = []
        limit = max(1, int(self.config.max_datasets))
        budget = int(self.config.max_total_assets or 0)

        def over() -> bool:
            total = sum(len(d.assets) for d in self.datasets.values())
            return len(self.datasets) > limit or bool(budget and total > budget)

        while over():
            victim = next((n for n in self.datasets if n not in (self.active, protect)), None)
            if victim is None:
                break
            self._detach(victim)
            del self.datasets[victim]
            logger.info("evicted dataset %s (max_datasets=%d, max_total_assets=%d)", victim,
                        limit, budget)
            record = _EVICTED.get()
            if record is not None:
                record.append(victim)
            events.extend(self._removed(victim, active=False))
        return events

    def _detach(self, name: str) -> None:
        unsub = self._unsubscribe.pop(name, None)
        if unsub is not None:
            unsub()

    def _on_dataset_mutation(self, name: str, _dataset: Dataset) -> None:
        self._on_mutation(name)

    def _on_mutation(self, name: str) -> None:
        with self._lock:
            present = name in self.datasets
            active = self.active == name
        if present:
            self._emit(self._changed(name, active=active))

    def select(self, name: str) -> Dataset:
        """Make ``name`` the active dataset."""
        with self._lock:
            ds = self.get(name) if name else self.get("")
            self.active = ds.name
        self._emit([("resource", uri) for uri in (WORKSPACE_URI, DATASETS_URI, *ACTIVE_URIS)])
        return ds

    def remove(self, name: str) -> Dataset:
        """Unload ``name``; if it was active, the most recently added remaining one becomes
        active (none when the workspace is empty)."""
        with self._lock:
            ds = self.get(name) if name else self.get("")
            self._detach(ds.name)
            del self.datasets[ds.name]
            was_active = self.active == ds.name
            if was_active:
                self.active = next(reversed(self.datasets)) if self.datasets else None
        self._emit(self._removed(ds.name, active=was_active))
        return ds

    def snapshot(self, name: str | None = "", new_name: str | None = None) -> Dataset:
        """Deep-copy dataset ``name`` (active for "") under ``new_name`` (default
        ``<name>-snapshot`` made unique) without activating it."""
        with self._lock:
            src = self.get(name)
            target = self.check_name(new_name) if new_name else \
                self.unique_name(f"{src.name}-snapshot")
            if target in self.datasets:
                raise DatasetNameConflictError(target, self.unique_name(target))
        copy = src.copy(target)
        return self.add(copy, target, activate=False)

    # -- loading -------------------------------------------------------------------------

    def load(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        kind: str = "auto",
        activate: bool = True,
        replace: bool = False,
        progress: ProgressFn | None = None,
        strict: bool = False,
    ) -> Dataset:
        """Load an estate file or folder under an allowed root as a dataset (``strict``: a
        bad record fails the load instead of being skipped and reported in
        ``ds.load_report``).

        Without ``name`` the file's stem (the folder's name for inventory-map.json) is used,
        made unique; an explicit name that exists
        is refused unless ``replace``. Nothing changes if reading fails.
        """
        from .estate.formats import load_path

        resolved = self.resolve_path(path)
        if name is None:
            stem = resolved.stem or resolved.name
            if resolved.is_file() and stem in ("inventory-map", "findings"):
                stem = resolved.parent.name  # name the estate after its folder
            final = self.unique_name(self.name_from(stem))
        else:
            final = self.check_name(name)
            with self._lock:
                if final in self.datasets and not replace:
                    raise DatasetNameConflictError(final, self.unique_name(final))
        read = self.parse_cache.load if self.parse_cache is not None else load_path
        ds = read(resolved, kind=kind, name=final, progress=progress, strict=strict)
        return self.add(ds, final, activate=activate, replace=replace)

    def load_sample(
        self,
        kind: str = "demo",
        *,
        n: int | None = None,
        seed: int = 7,
        name: str | None = None,
        activate: bool = True,
        replace: bool = False,
    ) -> Dataset:
        """Generate a sample estate (demo, drifted, scaled) and add it (see ``load``)."""
        from .estate.samples import sample

        if name is not None:
            final = self.check_name(name)
            with self._lock:
                if final in self.datasets and not replace:
                    raise DatasetNameConflictError(final, self.unique_name(final))
        ds = sample(kind, n=n, seed=seed, name=name)
        final = name if name is not None else self.unique_name(ds.name)
        return self.add(ds, final, activate=activate, replace=replace)

    # -- paths ---------------------------------------------------------------------------

    @property
    def allowed_roots(self) -> list[Path]:
        return self.config.read_roots()

    @property
    def output_root(self) -> Path:
        return self.config.output_root()

    def resolve_path(self, path: str | Path, *, write: bool = False) -> Path:
        """The absolute, symlink-resolved path, checked to lie under an allowed root (or,
        for ``write``, under the output root). Relative paths start at the first root (the
        output root for writes). AccessDeniedError (-31001) otherwise."""
        if not isinstance(path, (str, Path)) or not str(path).strip():
            raise InvalidArgumentsError("path is empty; pass a file or folder path.",
                                        data={"field": "path"})
        text = str(path)
        if "\x00" in text or len(text) > MAX_PATH_CHARS or any(
            len(part) > MAX_NAME_CHARS for part in Path(text).parts
        ):
            raise InvalidArgumentsError(
                f"The path is not usable: it contains a NUL byte, or is longer than "
                f"{MAX_PATH_CHARS} characters ({MAX_NAME_CHARS} per name).",
                data={"field": "path"})
        roots = [self.output_root] if write else self.allowed_roots
        p = Path(path).expanduser()
        if not p.is_absolute():
            p = roots[0] / p
        try:
            resolved = p.resolve(strict=False)
        except (OSError, RuntimeError):  # symlink loops
            raise AccessDeniedError("The path cannot be resolved (a symlink loop?).",
                                    data={"field": "path"}) from None
        if not any(resolved == r or resolved.is_relative_to(r) for r in roots):
            where = "the output folder" if write else "the allowed folders"
            raise AccessDeniedError(
                f"The path is outside {where}; use a path under one of the roots in the "
                "error data (relative paths start at the first; set "
                "CLOUDG_MCP_ALLOWED_ROOTS to allow more).",
                data={"field": "path", "roots": [root_label(r) for r in roots],
                      "write": write})
        return resolved

    def output_path(self, relative: str | Path) -> Path:
        """A writable path under the output root (parents created)."""
        target = self.resolve_path(relative, write=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    # -- status --------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Names (sorted), the active name, and a line per dataset in load order."""
        with self._lock:
            items = list(self.datasets.items())
            active = self.active
        return {
            "datasets": sorted(n for n, _ in items),
            "active": active,
            "max_datasets": int(self.config.max_datasets),
            "loaded": [
                {"name": n, "version": d.version, "active": n == active, "source": d.source,
                 "kind": d.kind, "assets": len(d.assets), "edges": len(d.edges),
                 "findings": len(d.findings)}
                for n, d in items
            ],
        }


def _accounts(ds: Dataset, provider: str) -> list[str]:
    """The accounts of ``ds``'s assets of ``provider`` (the vault keeps those shaped like
    its identifiers: project ids, twelve-digit account ids), found for every provider in one
    pass and kept with the dataset's caches (a suppression keeps them)."""
    from .estate.dataset import CacheMiss

    try:
        by_provider = ds.cached("accounts_by_provider", partial(_accounts_by_provider, ds))
    except CacheMiss:  # asked inside a cache-only answer: work it out, keep nothing
        by_provider = _accounts_by_provider(ds)
    return list(by_provider.get(provider, ()))


def _accounts_by_provider(ds: Dataset) -> dict[str, list[str]]:
    """Provider -> its accounts, each once, in the order the assets first name them."""
    import numpy as np
    import pandas as pd

    frame = ds.assets
    if frame.empty or "provider" not in frame or "account_id" not in frame:
        return {}
    # each column's distinct values once (hash codes, -1 for a missing cell), then the
    # distinct pairs of codes in the order they first appear
    p_codes, providers = pd.factorize(frame["provider"])
    a_codes, accounts = pd.factorize(frame["account_id"])
    both = (p_codes >= 0) & (a_codes >= 0)
    width = max(len(accounts), 1)
    pairs = pd.unique(p_codes[both].astype(np.int64) * width + a_codes[both])
    out: dict[str, list[str]] = {}
    for code in pairs.tolist():
        p, a = divmod(code, width)
        out.setdefault(str(providers[p]), []).append(str(accounts[a]))
    return out
