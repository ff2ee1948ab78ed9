"""Workspace: the named estate datasets a layer serves, who owns each, the active one, events.

Listeners registered with ``on_change(fn)`` receive ``fn(kind, uri)``; the layer registers
its ``notify_change``. A change to dataset ``name`` (add/replace, mutation such as suppress,
removal, eviction) fires kind ``resource`` for every URI whose content depends on it:
``cloudg://workspace``, ``cloudg://datasets``, ``cloudg://datasets/{name}/summary|assets|
findings`` and, when ``name`` is, becomes or was the active dataset,
``cloudg://findings/summary`` and ``cloudg://compliance``. A new name or a removal also fires
a resources list change (kind ``resources``); ``select`` fires the workspace URIs and the two
active-dataset URIs.

Ownership (``acting``): a dataset belongs to the analyst side, or to the assistant whose call
created it. An assistant has an active dataset of its own (it starts as the analyst's), its
own quota (``assistant_max_*``, refused when full) and changes another principal's dataset
only as approved; the analyst's active dataset changes only by the analyst's calls (or an
approved unload of it). Evictions (past the analyst's CLOUDG_MCP_MAX_DATASETS /
CLOUDG_MCP_MAX_ASSETS) take only the analyst's own inactive datasets, for the analyst's loads,
and are recorded for the caller inside ``with workspace.evictions() as names``. Paths are
checked against allowed roots (symlinks resolved); writes go only under the output root. A
failed load leaves the workspace as it was.
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

from .acting import Change, current, owner_label, refuse
from .config import CloudGConfig
from .estate.errors import (
    DatasetNameConflictError,
    NoDatasetError,
    ReferenceNotFoundError,
)
from .layer.enums import ChangeKind
from .layer.errors import AccessDeniedError, InvalidArgumentsError
from .layer.listeners import Listeners
from .layer.wire import (
    ACTIVE_URIS,
    COMPLIANCE_URI,
    DATASETS_URI,
    FINDINGS_SUMMARY_URI,
    WORKSPACE_URI,
    dataset_uris,
    summary_uri,
)

if TYPE_CHECKING:
    from .estate.dataset import Dataset
    from .estate.parse_cache import ParseCache
    from .estate.progress_callbacks import ProgressFn
    from .layer.layer import ChangeListener

__all__ = ["Workspace", "NoDatasetError", "ReferenceNotFoundError", "DatasetNameConflictError",
           "WORKSPACE_URI", "DATASETS_URI", "FINDINGS_SUMMARY_URI", "COMPLIANCE_URI",
           "ACTIVE_URIS", "summary_uri", "dataset_uris", "root_label", "NAME_PATTERN"]

logger = logging.getLogger("cloudg.workspace")

#: Limits of a usable path (as on Linux): longer ones fail in the OS with messages that
#: would echo them.
MAX_PATH_CHARS = 4096
MAX_NAME_CHARS = 255

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
        #: The analyst's active dataset (an assistant's own choice is in ``selected``).
        self.active: str | None = None
        #: Dataset name -> its owner: None for the analyst side, else the principal id of
        #: the assistant whose call created it.
        self.owners: dict[str, str | None] = {}
        #: Governed principal id -> the dataset it made active for itself.
        self.selected: dict[str, str] = {}
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

    def notify(self, kind: ChangeKind, uri: str | None = None) -> None:
        """Tell every listener that ``kind`` (and ``uri``) changed; a failing one is skipped."""
        self._listeners.emit(kind, uri)

    def _emit(self, events: list[tuple[ChangeKind, str | None]]) -> None:
        for kind, uri in events:
            self.notify(kind, uri)

    @staticmethod
    def _changed(name: str, *, active: bool) -> list[tuple[ChangeKind, str | None]]:
        """Dataset ``name`` changed: the workspace URIs, its own three resources and, when
        ``active`` (it is, becomes or was the active one), the active-dataset resources."""
        uris = [WORKSPACE_URI, DATASETS_URI, *dataset_uris(name)]
        if active:
            uris.extend(ACTIVE_URIS)
        return [(ChangeKind.RESOURCE, uri) for uri in uris]

    @classmethod
    def _removed(cls, name: str, *, active: bool) -> list[tuple[ChangeKind, str | None]]:
        return [(ChangeKind.RESOURCES, None), *cls._changed(name, active=active)]

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

    # -- ownership -------------------------------------------------------------------------

    def owner_of(self, name: str) -> str | None:
        """Who owns dataset ``name``: None for the analyst side, else an assistant's id."""
        with self._lock:
            return self.owners.get(name)

    def active_for(self, owner: str | None) -> str | None:
        """The active dataset of ``owner`` (None: the analyst's): an assistant's own choice
        while that dataset is loaded, else the analyst's."""
        with self._lock:
            if owner is not None:
                chosen = self.selected.get(owner)
                if chosen is not None and chosen in self.datasets:
                    return chosen
            return self.active

    def active_name(self) -> str | None:
        """The active dataset of the running call's principal (the analyst's outside a
        governed call): what an empty ``dataset`` argument means for it."""
        acting = current()
        return self.active_for(acting.owner if acting is not None else None)

    def _guard(self, change: Change, name: str) -> None:
        """Refuse ``change`` of dataset ``name`` when the running call is governed, the
        dataset is another principal's and no approval of this call covers the change."""
        acting = current()
        if acting is None:
            return
        owner = self.owners.get(name)
        ds = self.datasets.get(name)
        if owner != acting.owner and not (ds is not None and acting.may(change, name, ds.epoch)):
            raise refuse(change, name, owner)

    def _guard_mutation(self, name: str, what: str) -> None:
        """A dataset's own mutation (``Dataset.guard``): suppressions or its content."""
        with self._lock:
            if self.datasets.get(name) is None:
                return
            self._guard(Change.SUPPRESSIONS if what == "suppressions" else Change.CONTENT,
                        name)

    def _check_share(self, owner: str | None, name: str, incoming: int) -> None:
        """Refuse a governed call's dataset that would take ``owner`` past its share (an
        assistant's ``assistant_max_*``, or the analyst's when an approved call replaces
        one of the analyst's): nothing is ever evicted for an assistant."""
        if owner is None:
            limit, budget = max(1, int(self.config.max_datasets)), int(
                self.config.max_total_assets or 0)
        else:
            limit = max(1, int(self.config.assistant_max_datasets))
            budget = int(self.config.assistant_max_assets or 0)
        held = [n for n, o in self.owners.items() if o == owner and n != name]
        assets = sum(len(self.datasets[n].assets) for n in held)
        if len(held) + 1 <= limit and not (budget and assets + incoming > budget):
            return
        whose = "your" if owner is not None and owner == getattr(current(), "owner", None) \
            else f"the {owner_label(owner)}'s"
        raise AccessDeniedError(
            f"The workspace holds all it may of {whose} datasets ({limit} datasets, "
            f"{f'{budget:,}' if budget else 'any number of'} assets), so this dataset was not "
            "added and nothing was unloaded to make room. Unload one of those datasets "
            "(list_datasets shows each dataset's owner) and try again.",
            data={"reason": "quota", "owner": owner_label(owner), "held": held,
                  "held_assets": assets, "incoming_assets": incoming,
                  "max_datasets": limit, "max_assets": budget})

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
        """The dataset ``name``; for ``""``/None the active one of the running call's
        principal (``active_name``). NoDatasetError otherwise."""
        with self._lock:
            if not name:
                active = self.active_name()
                if active is None:
                    raise NoDatasetError()
                return self.datasets[active]
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
        go stale, and its owner stays the old one's. A new name belongs to the running call's
        principal. Activates (for that principal) when asked, or when nothing is active and
        the analyst adds. Past the analyst's ``max_datasets`` the analyst's oldest inactive
        dataset is evicted; a governed call past its owner's share is refused instead.
        """
        name = self.check_name(name if name is not None else dataset.name)
        budget = int(self.config.max_total_assets or 0)
        if budget and len(dataset.assets) > budget:
            raise InvalidArgumentsError(
                f"The dataset has more assets than the workspace may hold ({budget}); load a "
                "smaller estate or raise CLOUDG_MCP_MAX_ASSETS.",
                data={"assets": len(dataset.assets), "max_total_assets": budget})
        acting = current()
        by = acting.owner if acting is not None else None
        events: list[tuple[ChangeKind, str | None]] = []
        with self._lock:
            old = self.datasets.get(name)
            if old is not None and not replace:
                raise DatasetNameConflictError(name, self.unique_name(name))
            owner = self.owners.get(name) if old is not None else by
            if old is not None:
                self._guard(Change.REPLACE, name)
            if acting is not None:
                self._check_share(owner, name, len(dataset.assets))
            if any(d is dataset for n, d in self.datasets.items() if n != name):
                dataset = dataset.copy(name)
            dataset.name = name
            if old is not None:
                dataset.version = max(dataset.version, old.version + 1)
                self._detach(name)
                del self.datasets[name]
            else:
                events.append((ChangeKind.RESOURCES, None))
            self.datasets[name] = dataset
            self.owners[name] = owner
            self._unsubscribe[name] = dataset.on_change(partial(self._on_dataset_mutation, name))
            dataset.guard = partial(self._guard_mutation, name)
            if by is not None:
                if activate:
                    self.selected[by] = name
            elif activate or self.active is None:
                self.active = name
            shown = self.active == name or (by is not None and self.selected.get(by) == name)
            events.extend(self._changed(name, active=shown))
            if acting is None:
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

    def _evict(self, protect: str | None = None) -> list[tuple[ChangeKind, str | None]]:
        """Evict the analyst's oldest datasets that are neither active nor ``protect`` (the
        one just added) while the analyst's datasets are past ``max_datasets`` or the asset
        budget. Assistants' datasets neither count here nor are ever evicted."""
        events: list[tuple[ChangeKind, str | None]] = []
        limit = max(1, int(self.config.max_datasets))
        budget = int(self.config.max_total_assets or 0)

        def mine() -> list[str]:
            return [n for n in self.datasets if self.owners.get(n) is None]

        def over() -> bool:
            names = mine()
            total = sum(len(self.datasets[n].assets) for n in names)
            return len(names) > limit or bool(budget and total > budget)

        while over():
            victim = next((n for n in mine() if n not in (self.active, protect)), None)
            if victim is None:
                break
            self._drop(victim)
            logger.info("evicted dataset %s (max_datasets=%d, max_total_assets=%d)", victim,
                        limit, budget)
            record = _EVICTED.get()
            if record is not None:
                record.append(victim)
            events.extend(self._removed(victim, active=False))
        return events

    def _drop(self, name: str) -> None:
        """Forget dataset ``name``: its listener, guard, owner and anyone's choice of it."""
        self._detach(name)
        ds = self.datasets.pop(name)
        ds.guard = None
        self.owners.pop(name, None)
        for who in [w for w, chosen in self.selected.items() if chosen == name]:
            del self.selected[who]

    def _detach(self, name: str) -> None:
        unsub = self._unsubscribe.pop(name, None)
        if unsub is not None:
            unsub()

    def _on_dataset_mutation(self, name: str, _dataset: Dataset) -> None:
        self._on_mutation(name)

    def _on_mutation(self, name: str) -> None:
        with self._lock:
            present = name in self.datasets
            active = self.active == name or name in self.selected.values()
        if present:
            self._emit(self._changed(name, active=active))

    def select(self, name: str) -> Dataset:
        """Make ``name`` the active dataset of the running call's principal (an assistant's
        choice is its own: the analyst's active dataset stays as it was)."""
        acting = current()
        with self._lock:
            ds = self.get(name) if name else self.get("")
            if acting is not None:
                self.selected[acting.owner] = ds.name
            else:
                self.active = ds.name
        self._emit([(ChangeKind.RESOURCE, uri)
                    for uri in (WORKSPACE_URI, DATASETS_URI, *ACTIVE_URIS)])
        return ds

    def successor(self, name: str) -> str | None:
        """The analyst's active dataset after ``name`` is unloaded: unchanged unless it was
        ``name``; then the analyst's most recently added other dataset, else anyone's."""
        with self._lock:
            if self.active != name:
                return self.active
            rest = [n for n in self.datasets if n != name]
            own = [n for n in rest if self.owners.get(n) is None]
            return (own or rest)[-1] if rest else None

    def remove(self, name: str) -> Dataset:
        """Unload ``name``; if it was the analyst's active dataset, the analyst's most
        recently added remaining one becomes active (else anyone's; none when empty)."""
        with self._lock:
            ds = self.get(name) if name else self.get("")
            self._guard(Change.UNLOAD, ds.name)
            was_active = self.active == ds.name or ds.name in self.selected.values()
            self.active = self.successor(ds.name)
            self._drop(ds.name)
        self._emit(self._removed(ds.name, active=was_active))
        return ds

    def snapshot(self, name: str | None = "", new_name: str | None = None) -> Dataset:
        """Deep-copy dataset ``name`` (active for "") under ``new_name`` (default
        ``<name>-snapshot`` made unique) without activating it; the copy belongs to the
        running call's principal."""
        with self._lock:
            src = self.get(name)
            target = self.check_name(new_name) if new_name else \
                self.unique_name(f"{src.name}-snapshot")
            if target in self.datasets:
                raise DatasetNameConflictError(target, self.unique_name(target))
        copy = src.copy(target)
        copy.snapshot_of = src.name
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
            final = self.default_name(resolved)
        else:
            final = self.check_name(name)
            with self._lock:
                if final in self.datasets and not replace:
                    raise DatasetNameConflictError(final, self.unique_name(final))
        self._precheck(final)
        read = self.parse_cache.load if self.parse_cache is not None else load_path
        ds = read(resolved, kind=kind, name=final, progress=progress, strict=strict)
        return self.add(ds, final, activate=activate, replace=replace)

    def default_name(self, resolved: Path) -> str:
        """The name a load of ``resolved`` without a name gets: the file's stem (the
        folder's name for an inventory-map.json or findings.json), made unique."""
        stem = resolved.stem or resolved.name
        if resolved.is_file() and stem in ("inventory-map", "findings"):
            stem = resolved.parent.name  # name the estate after its folder
        return self.unique_name(self.name_from(stem))

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
        self._precheck(name)
        ds = sample(kind, n=n, seed=seed, name=name)
        final = name if name is not None else self.unique_name(ds.name)
        return self.add(ds, final, activate=activate, replace=replace)

    def _precheck(self, name: str | None) -> None:
        """Before reading or generating anything for a governed call: refuse a replacement
        it may not make and a dataset past its share (``add`` checks again after)."""
        acting = current()
        if acting is None:
            return
        with self._lock:
            existing = name is not None and name in self.datasets
            if existing:
                self._guard(Change.REPLACE, str(name))
            owner = self.owners.get(str(name)) if existing else acting.owner
            self._check_share(owner, str(name or ""), 0)

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
            setting = self.config.output_setting if write else self.config.roots_setting
            more = "moves it" if write else "allows more"
            raise AccessDeniedError(
                f"The path is outside {where}; use a path under one of the roots in the "
                f"error data (relative paths start at the first; {setting} {more}).",
                data={"field": "path", "roots": [root_label(r) for r in roots],
                      "write": write, "setting": setting})
        return resolved

    def shown_path(self, path: Path, *, write: bool = False) -> str:
        """``path`` relative to the allowed root (or, ``write``, the output root) it lies
        in, as errors name roots: never the server's absolute path."""
        roots = [self.output_root] if write else self.allowed_roots
        for root in roots:
            if path == root or path.is_relative_to(root):
                rel = path.relative_to(root).as_posix()
                label = root_label(root)
                if rel == ".":
                    return label
                return rel if label == "." else f"{label}/{rel}"
        return root_label(path)

    def guard_overwrite(self, files: Sequence[Path]) -> None:
        """Before a governed call writes ``files``: refuse if one exists and the call's
        approval did not show that very file (its path and modification time)."""
        acting = current()
        if acting is None:
            return
        for path in files:
            try:
                stamp = path.stat().st_mtime_ns
            except FileNotFoundError:
                continue
            shown = self.shown_path(path, write=True)
            if not acting.may(Change.OVERWRITE, shown, stamp):
                raise refuse(Change.OVERWRITE, shown, None)

    def output_path(self, relative: str | Path) -> Path:
        """A writable path under the output root (parents created)."""
        target = self.resolve_path(relative, write=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    # -- status --------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Names (sorted), the caller's active name, and a line per dataset in load order
        (with its owner: ``analyst`` or the assistant that created it)."""
        with self._lock:
            items = list(self.datasets.items())
            owners = dict(self.owners)
            active = self.active_name()
        return {
            "datasets": sorted(n for n, _ in items),
            "active": active,
            "max_datasets": int(self.config.max_datasets),
            "loaded": [
                {"name": n, "version": d.version, "active": n == active, "source": d.source,
                 "kind": d.kind, "assets": len(d.assets), "edges": len(d.edges),
                 "findings": len(d.findings), "owner": owner_label(owners.get(n))}
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
