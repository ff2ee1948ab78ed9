"""The in-process layer the commands use: ``--policy`` and ``--registry`` build it,
``--sample`` and ``--dataset NAME=PATH`` (or ``NAME=sample:KIND``) load its workspace first
through its own tools, each load's report said on stderr."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..layer.wire import ERROR_DATA_META
from .args import UsageError

if TYPE_CHECKING:
    from ..estate.parse_cache import ParseCache
    from ..layer import CloudGMCPLayer, Registry

__all__ = ["load_registry", "local_layer"]


def load_registry(target: str) -> Registry:
    """The registry at ``MODULE:ATTR`` (an attribute, or a function returning one).

    The current directory is importable, as with ``python -m``; ``UsageError`` says what is
    wrong with ``target``.
    """
    from ..registry_loading import RegistryTargetError
    from ..registry_loading import load_registry as load

    try:
        return load(target, "--registry")
    except RegistryTargetError as exc:
        raise UsageError(str(exc)) from None


def local_layer(args: argparse.Namespace) -> CloudGMCPLayer:
    """The layer ``args`` describe, its workspace loaded."""
    from ..assembly import build_layer
    from ..policy import PolicyError
    from ..workspace import Workspace

    registry = load_registry(args.registry) if getattr(args, "registry", None) else None
    workspace = Workspace()
    if getattr(args, "dataset", None) and getattr(args, "cache", False):
        from ..estate.parse_cache import ParseCache

        workspace.parse_cache = ParseCache()
    try:
        layer = build_layer(workspace=workspace, policy=args.policy, registry=registry)
    except PolicyError as exc:
        raise UsageError(f"--policy: {exc}") from None
    if getattr(args, "dataset", None) or getattr(args, "sample", None):
        # the tools' own log lines would repeat the load report printed for each --dataset
        tool_log = logging.getLogger("cloudg.mcp")
        level = tool_log.level
        tool_log.setLevel(logging.ERROR)
        try:
            asyncio.run(_prepare_workspace(layer, args.dataset or (), args.sample))
        finally:
            tool_log.setLevel(level)
    return layer


async def _prepare_workspace(
    layer: CloudGMCPLayer, datasets: Sequence[str], sample: str | None
) -> None:
    """Load the ``--sample`` estate and the ``--dataset`` specs through the layer's tools."""
    from ..dataset_specs import DatasetSpec, DatasetSpecError, parse_dataset_spec
    from ..layer import NotFoundError

    loads: list[tuple[str, DatasetSpec | None]] = []
    if sample:
        loads.append(("--sample", None))
    for item in datasets:
        try:
            loads.append(("--dataset", parse_dataset_spec(item)))
        except DatasetSpecError:
            raise UsageError("--dataset takes NAME=PATH, for example prod=estate/prod.json"
                             ) from None
    for option, spec in loads:
        tool = spec.tool if spec is not None else "sample_estate"
        try:
            if spec is None:
                result = await layer.call_tool(tool, {"name": sample})
            else:
                result = await spec.load(layer)
        except NotFoundError:
            raise UsageError(
                f"{option} needs the {tool} tool, which this server's catalog does not offer "
                "(check --registry and --policy)"
            ) from None
        if result.is_error:
            data = result.meta.get(ERROR_DATA_META)
            details = f" (details: {json.dumps(data, default=str)})" if data else ""
            raise UsageError(f"{option} failed: {result.text}{details}")
        if spec is not None and not spec.sample:
            _print_load_report(spec.name, result.structured or {},
                               getattr(layer.workspace, "parse_cache", None))


#: Skipped records and notes of a load listed on the terminal (load_report has up to 50).
_MAX_LISTED = 5


def _print_load_report(name: str, loaded: dict[str, Any], cache: ParseCache | None) -> None:
    """What a ``--dataset`` load did, on stderr: its counts explained, the first skipped
    records and notes by index, warnings, and whether the parse came from the cache."""
    report = loaded.get("load_report")
    cached = " (cached parse)" if getattr(cache, "last", None) == "hit" else ""
    if not isinstance(report, dict):
        print(f"cloudg-nb: dataset {name}: {loaded.get('assets', 0)} assets, "
              f"{loaded.get('findings', 0)} findings{cached}", file=sys.stderr)
        return
    print(f"cloudg-nb: dataset {name} ({report.get('file')}): {report.get('explanation')}"
          f"{cached}", file=sys.stderr)
    for label, key in (("skipped", "skipped_records"), ("note on", "notes")):
        items = report.get(key) or []
        for item in items[:_MAX_LISTED]:
            where = f" of {item['file']}" if item.get("file") else ""
            print(f"  {label} record #{item.get('index')}{where}: {item.get('field')}: "
                  f"{item.get('reason')}", file=sys.stderr)
        if len(items) > _MAX_LISTED:
            print(f"  ... and more {key.replace('_', ' ')} (load_report lists them)",
                  file=sys.stderr)
    for warning in report.get("warnings") or []:
        print(f"  warning: {warning}", file=sys.stderr)
