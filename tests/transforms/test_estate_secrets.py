"""Acceptance: secrets planted in a realistic estate file (``estate_secrets_corpus``) and
loaded with ``load_dataset`` never reach a caller under ``standard`` — through every tool,
resource, template, prompt and completion, neither whole nor any 12-character piece — and
all of them are visible under ``open`` (so the check can fail)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from estate_secrets_corpus import PLANTED, write_estate

from cloudg_nb import CloudGMCPLayer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from catalog.support import make_layer

#: Tools that change the workspace or need a caller's own value: not output surfaces here.
_SKIP = {"load_dataset", "sample_estate", "select_dataset", "unload_dataset", "reveal_token",
         "suppress_findings", "unsuppress_findings", "preview_transform"}
_WINDOW = 12


@pytest.fixture(autouse=True)
def _quiet(caplog):
    caplog.set_level(logging.CRITICAL, logger="cloudg.mcp")


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            _strings(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _strings(v, out)
    elif value is not None:
        out.append(str(value))


def _wire(x: Any) -> Any:
    return x.to_wire() if hasattr(x, "to_wire") else x


async def _surfaces(tmp_path: Path, policy: str) -> dict[str, list[str]]:
    """Every string every surface returned, by surface."""
    layer: CloudGMCPLayer = make_layer(tmp_path, policy=policy)
    write_estate(tmp_path / "data")
    loaded = await layer.call_tool("load_dataset", {"path": "findings.json", "name": "planted"})
    assert not loaded.is_error, loaded.text
    await layer.call_tool("sample_estate", {"name": "demo", "activate": False})
    asset_ids = [f"arn:aws:ec2:us-east-1:111122223333:instance/i-0planted{n:08d}"
                 for n in range(len(PLANTED))]
    finding_ids = [f"f-{n:03d}" for n in range(len(PLANTED))]
    got: dict[str, Any] = {"load_dataset": loaded.to_wire()}

    async def tool(name: str, args: dict[str, Any]) -> None:
        got[f"tool {name} {json.dumps(args)[:60]}"] = (await layer.call_tool(name, args)).to_wire()

    for name, spec in layer.registry.tools.items():
        if name in _SKIP:
            continue
        props = (spec.input_schema or {}).get("properties", {})
        base: dict[str, Any] = {"limit": 500} if "limit" in props else {}
        required = set((spec.input_schema or {}).get("required", []))
        if "ref" in required:
            for ref in asset_ids:
                await tool(name, {**base, "ref": ref})
            continue
        if "finding_id" in required:
            for fid in finding_ids:
                await tool(name, {**base, "finding_id": fid})
            continue
        if required == {"source", "target"}:
            await tool(name, {"source": "internet", "target": asset_ids[0]})
            continue
        if "seeds" in required:
            await tool(name, {**base, "seeds": asset_ids[:5]})
            continue
        if "base" in required:
            await tool(name, {"base": "demo", "target": "planted"})
            await tool(name, {"base": "planted", "target": "demo"})
            continue
        await tool(name, base)
        for arg, schema in props.items():
            for choice in schema.get("enum", []) if arg in ("group_by", "sort_by") else []:
                await tool(name, {**base, arg: choice})
    for arg in ("title", "tag", "resource_id", "source_tool"):
        await tool("findings_summary", {"group_by": arg})
        await tool("count_assets", {"group_by": arg})
    for uri in layer.registry.resources:
        got[f"resource {uri}"] = [_wire(c) for c in await layer.read_resource(uri)]
    uris = ["cloudg://datasets/planted/summary", "cloudg://datasets/planted/assets",
            "cloudg://datasets/planted/findings", "cloudg://findings/severity/high",
            "cloudg://compliance/NIST-800-53-Revision-5"]
    uris += [f"cloudg://assets/{a}" for a in asset_ids]
    uris += [f"cloudg://findings/{f}" for f in finding_ids]
    for uri in uris:
        try:
            got[f"template {uri}"] = [_wire(c) for c in await layer.read_resource(uri)]
        except Exception as exc:  # an error message is a surface too
            got[f"template {uri}"] = [str(exc), str(getattr(exc, "data", ""))]
    for name, prompt in layer.registry.prompts.items():
        required = {a.name for a in prompt.arguments if a.required}
        calls: list[dict[str, str]] = [{}]
        if "ref" in required:
            calls = [{"ref": a} for a in asset_ids]
        elif "finding_id" in required:
            calls = [{"finding_id": f} for f in finding_ids]
        elif "base" in required:
            calls = [{"base": "demo", "target": "planted"}]
        for args in calls:
            got[f"prompt {name} {args}"] = _wire(await layer.get_prompt(name, args))
        for a in prompt.arguments:
            for partial in ("", "a", "h", "f", "i", "s"):
                got[f"complete prompt {name}.{a.name} {partial!r}"] = await layer.complete(
                    {"type": "ref/prompt", "name": name}, {"name": a.name, "value": partial})
    for uri_template, template in layer.registry.templates.items():
        for var in template.completions:
            for partial in ("", "a", "h", "f", "i", "s"):
                got[f"complete {uri_template}.{var} {partial!r}"] = await layer.complete(
                    {"type": "ref/resource", "uri": uri_template}, {"name": var, "value": partial})
    out: dict[str, list[str]] = {}
    for surface, value in got.items():
        strings: list[str] = []
        _strings(value, strings)
        strings.append(json.dumps(value, ensure_ascii=False, default=str))
        out[surface] = strings
    return out


def _leaks(surfaces: dict[str, list[str]]) -> dict[str, list[str]]:
    """Planted label → surfaces showing the secret or a 12-character piece of it."""
    found: dict[str, list[str]] = {}
    for surface, strings in surfaces.items():
        hay = "\x00".join(strings)
        for label, (_kind, secret, _carrier) in PLANTED.items():
            pieces = {secret[i:i + _WINDOW] for i in range(len(secret) - _WINDOW + 1)}
            if any(p in hay for p in pieces):
                found.setdefault(label, []).append(surface)
    return found


def test_corpus_has_at_least_80_secrets_of_at_least_50_kinds() -> None:
    assert len(PLANTED) >= 80
    assert len({kind for kind, _s, _c in PLANTED.values()}) >= 50
    assert all(len(secret) >= _WINDOW for _k, secret, _c in PLANTED.values())


async def test_no_planted_estate_secret_reaches_any_surface_under_standard(
        tmp_path: Path) -> None:
    leaks = _leaks(await _surfaces(tmp_path, "standard"))
    assert {label: where[:3] for label, where in leaks.items()} == {}


async def test_every_planted_estate_secret_is_visible_under_open(tmp_path: Path) -> None:
    leaks = _leaks(await _surfaces(tmp_path, "open"))
    assert sorted(set(PLANTED) - set(leaks)) == []
