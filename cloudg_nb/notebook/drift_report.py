"""``DriftReport``: a ``diff_datasets`` result as a reader wants it — the headline, then what
got worse (protections lost, attack paths to crown jewels opened, new exposure, findings),
then what improved — as HTML (JupyterLab's theme colours, light or dark) and as text.

Every value from the estate is escaped: asset names and finding titles are untrusted input.
Plain HTML rather than a widget, so it reads the same in nbclient output, exported notebooks
and the browser.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

__all__ = ["DriftReport", "SECTIONS"]

Item = dict[str, Any]


def _asset(a: Item | None) -> str:
    if not a:
        return "?"
    return str(a.get("name") or a.get("id") or "?")


def _finding(f: Item) -> str:
    return f"{f.get('id')} {f.get('severity', '')} {f.get('title') or ''}".replace("  ", " ")


def _path(p: Item) -> str:
    return " → ".join(str(step) for step in p.get("path") or []) + f" — {p.get('why')}"


def _severity(c: Item) -> str:
    return f"{c.get('id')} {c.get('title') or ''}: {c.get('from')} → {c.get('to')}"


def _exposure(e: Item) -> str:
    return f"{_asset(e.get('asset'))}: {'; '.join(e.get('changes') or [])}"


#: (side, key in the result, heading, one line per item); the order is the report's order.
SECTIONS: list[tuple[str, str, str, Callable[[Item], str]]] = [
    ("worse", "lost_protections", "Protections lost",
     lambda p: f"{p.get('text')} — {p.get('how')}"),
    ("worse", "attack_paths_opened", "Attack paths to crown jewels opened", _path),
    ("worse", "newly_internet_exposed", "Newly exposed to the internet", _asset),
    ("worse", "exposure_weakened", "Exposed assets less protected", _exposure),
    ("worse", "findings_opened", "Findings opened", _finding),
    ("worse", "severity_raised", "Findings more severe", _severity),
    ("better", "protections_gained", "Protections added",
     lambda p: f"{p.get('text')} — {p.get('how')}"),
    ("better", "attack_paths_closed", "Attack paths to crown jewels closed", _path),
    ("better", "no_longer_internet_exposed", "No longer exposed to the internet", _asset),
    ("better", "exposure_strengthened", "Exposed assets better protected", _exposure),
    ("better", "findings_closed", "Findings closed", _finding),
    ("better", "severity_lowered", "Findings less severe", _severity),
]
_TITLES = {"worse": "What got worse", "better": "What improved"}
_EMPTY = {"worse": "Nothing got worse.", "better": "Nothing improved."}
#: The colour of each side's bar (its text keeps the theme's text colour: red or green text
#: on white reads below 4.5:1).
_COLOURS = {"worse": "var(--jp-error-color1, #d32f2f)",
            "better": "var(--jp-success-color1, #388e3c)"}
_BOX = ("font-family:var(--jp-ui-font-family, system-ui, sans-serif);"
        "color:var(--jp-ui-font-color1, inherit);line-height:1.45;max-width:72rem")


class DriftReport:
    """What changed between two datasets, worst first; ``data`` is the tool's result."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def _title(self) -> str:
        base, target = self.data.get("base") or {}, self.data.get("target") or {}
        since = " (since its latest snapshot)" if self.data.get("since_snapshot") else ""
        return (f"Drift from {base.get('name')} (v{base.get('version')}) to "
                f"{target.get('name')} (v{target.get('version')}){since}")

    def _sections(self, side: str) -> list[tuple[str, list[str], int]]:
        """(heading, lines, how many there are in all) of each non-empty section of ``side``."""
        counts = self.data.get("summary") or {}
        found = []
        for where, key, heading, line in SECTIONS:
            if where != side:
                continue
            items = (self.data.get(side) or {}).get(key) or []
            if items:
                total = int(counts.get(f"{side}_{key}", len(items)))
                found.append((heading, [line(i) for i in items], max(total, len(items))))
        return found

    def __repr__(self) -> str:
        out = [self._title(), str(self.data.get("headline", ""))]
        for side in ("worse", "better"):
            out.append("")
            out.append(_TITLES[side])
            sections = self._sections(side)
            if not sections:
                out.append(f"  {_EMPTY[side]}")
            for heading, lines, total in sections:
                out.append(f"  {heading} ({total:,})")
                out.extend(f"    - {text}" for text in lines)
                if total > len(lines):
                    out.append(f"    … and {total - len(lines):,} more (raise limit=)")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        esc = html.escape
        parts = [f'<div class="cloudg-drift" style="{_BOX}">',
                 f'<div style="font-weight:600">{esc(self._title())}</div>',
                 f'<p class="cloudg-drift-headline" style="margin:.3em 0 .6em">'
                 f'{esc(str(self.data.get("headline", "")))}</p>']
        for side in ("worse", "better"):
            colour = _COLOURS[side]
            parts.append(f'<section class="cloudg-drift-{side}" style="border-left:3px solid '
                         f'{colour};padding:.1em .8em;margin:.4em 0">')
            parts.append(f'<div style="font-weight:600">{_TITLES[side]}</div>')
            sections = self._sections(side)
            if not sections:
                parts.append(f"<div>{_EMPTY[side]}</div>")
            for heading, lines, total in sections:
                parts.append(f'<div style="margin-top:.3em">{esc(heading)} ({total:,})</div>'
                             '<ul style="margin:.1em 0 .2em 1.2em;padding:0">')
                parts.extend(f"<li>{esc(text)}</li>" for text in lines)
                if total > len(lines):
                    parts.append(f"<li><i>… and {total - len(lines):,} more "
                                 "(raise limit=)</i></li>")
                parts.append("</ul>")
            parts.append("</section>")
        parts.append("</div>")
        return "".join(parts)
