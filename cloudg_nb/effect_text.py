"""Plain-text lines for what a waiting call will do (an approval's ``effects``), the same on
every front end: the approval page, the notebook panel, the text form. Nothing is cut: the
server bounds what an approval may hold, and refuses calls whose effect is larger.
Stdlib only, so a kernel imports it at no cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["effect_lines"]


def _n(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _dataset(effect: Mapping[str, Any]) -> str:
    """``dataset demo (the analyst's: 60 assets, 15 findings, 1 suppressed; the analyst's
    active dataset)``."""
    parts = []
    if "assets" in effect and "findings" in effect:
        size = f"{_n(effect['assets'])} assets, {_n(effect['findings'])} findings"
        if effect.get("suppressed_findings"):
            size += f", {_n(effect['suppressed_findings'])} suppressed"
        parts.append(size)
    if effect.get("analysts_active_dataset"):
        parts.append("the analyst's active dataset")
    owner = effect.get("owner")
    inner = "; ".join(parts)
    whose = f"the {owner}'s" if owner else ""
    detail = ": ".join(p for p in (whose, inner) if p)
    return f"dataset {effect.get('dataset')}" + (f" ({detail})" if detail else "")


def effect_lines(effects: Any) -> list[str]:
    """One line per effect (and one per finding a suppression names)."""
    lines: list[str] = []
    for effect in effects if isinstance(effects, list) else []:
        if not isinstance(effect, Mapping):
            continue
        kind = effect.get("effect")
        mark = "! " if effect.get("changes_others_data") else "· "
        if kind == "read_files":
            size = f", {_n(effect['bytes'])} bytes" if "bytes" in effect else \
                f", {_n(effect['files'])} files" if "files" in effect else ""
            lines.append(f"{mark}reads {effect.get('what', 'path')} {effect.get('path')}{size}"
                         f" (format {effect.get('kind', 'auto')})")
        elif kind == "add_dataset":
            copy = f" as a copy of {effect['copy_of']}" if effect.get("copy_of") else ""
            sample = f" from the {effect['sample']} sample" if effect.get("sample") else ""
            lines.append(f"{mark}adds dataset {effect.get('dataset')}{copy}{sample}, owned by "
                         f"{effect.get('owner')}")
        elif kind == "replace_dataset":
            lines.append(f"{mark}REPLACES {_dataset(effect)}; its suppressions are lost")
        elif kind == "unload_dataset":
            after = ""
            if effect.get("analysts_active_dataset"):
                after = (f"; the analyst's active dataset becomes "
                         f"{effect.get('analysts_active_after') or 'none'}")
            lines.append(f"{mark}UNLOADS {_dataset(effect)}{after}")
        elif kind == "select_dataset":
            lines.append(f"{mark}makes {effect.get('dataset')} the active dataset of "
                         f"{effect.get('for')} (the analyst's active dataset stays)")
        elif kind == "change_suppressions":
            verb = "SUPPRESSES" if effect.get("action") == "suppress" else "UNSUPPRESSES"
            named = effect.get("findings_named") or []
            reason = f', reason "{effect["reason"]}"' if effect.get("reason") else ""
            lines.append(f"{mark}{verb} {len(named)} finding(s) in {_dataset(effect)}{reason}")
            for f in named:
                state = " (suppressed now)" if f.get("suppressed_now") else ""
                lines.append(f"    {f.get('id')} {f.get('severity')} {f.get('title')} "
                             f"on {f.get('asset')}{state}")
            if effect.get("unknown_ids"):
                lines.append(f"    unknown ids (changed nothing): "
                             f"{', '.join(map(str, effect['unknown_ids']))}")
        elif kind == "write_files":
            over = f"; overwrites {', '.join(effect['overwrites'])}" \
                if effect.get("overwrites") else ""
            lines.append(f"{mark}writes {', '.join(effect.get('files', []))} of dataset "
                         f"{effect.get('dataset')} into {effect.get('folder')}{over}")
        elif kind == "reveal":
            lines.append(f"{mark}reveals the real value behind {effect.get('pseudonym')}")
        else:
            lines.append(f"{mark}{kind}")
    return lines
