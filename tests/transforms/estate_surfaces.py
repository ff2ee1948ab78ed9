"""Every output surface of the default catalog over a loaded estate, as strings.

``collect_surfaces`` calls every tool (each group_by / sort_by choice, each id for tools that
take one), reads every resource and the templates over the given ids, renders every prompt
and asks every completion; it returns, per surface, every string the caller received (keys,
values, error text and the JSON text of the whole answer). Privacy acceptance tests search
these strings for material that must not leave the layer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.estate.findings import FINDING_GROUP_KEYS
from cloudg_nb.estate.inventory import GROUP_KEYS

#: Tools that change the workspace or need a caller's own value: not output surfaces here.
SKIPPED_TOOLS = {"load_dataset", "sample_estate", "select_dataset", "unload_dataset",
                 "reveal_token", "suppress_findings", "unsuppress_findings",
                 "preview_transform"}
#: Free-form group_by columns asked of the aggregate tools besides their documented keys
#: (and ``tag:<key>`` for every tag key of the estate): a group key is a surface too.
EXTRA_GROUPS = ("title", "tag", "resource_id", "source_tool")
PARTIALS = ("", "a", "h", "f", "i", "s")


def strings_of(value: Any, out: list[str]) -> None:
    """Append every string of ``value`` (dict keys included) to ``out``."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            strings_of(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            strings_of(v, out)
    elif value is not None:
        out.append(str(value))


def _wire(x: Any) -> Any:
    return x.to_wire() if hasattr(x, "to_wire") else x


async def collect_surfaces(
    layer: CloudGMCPLayer, *, dataset: str, base: str, asset_ids: Sequence[str],
    finding_ids: Sequence[str], extra: dict[str, Any] | None = None,
) -> dict[str, list[str]]:
    """Every string every surface returned, by surface.

    ``dataset`` is the loaded estate under test, ``base`` another loaded estate for the diff
    tools and prompts; ``asset_ids`` / ``finding_ids`` are passed to tools, templates and
    prompts that take one; ``extra`` holds answers the caller already has (e.g. the load).
    """
    got: dict[str, Any] = dict(extra or {})

    async def tool(name: str, args: dict[str, Any]) -> None:
        got[f"tool {name} {json.dumps(args)[:60]}"] = (await layer.call_tool(name, args)).to_wire()

    for name, spec in layer.registry.tools.items():
        if name in SKIPPED_TOOLS:
            continue
        props = (spec.input_schema or {}).get("properties", {})
        limit: dict[str, Any] = {"limit": 500} if "limit" in props else {}
        required = set((spec.input_schema or {}).get("required", []))
        if "ref" in required:
            for ref in asset_ids:
                await tool(name, {**limit, "ref": ref})
            continue
        if "finding_id" in required:
            for fid in finding_ids:
                await tool(name, {**limit, "finding_id": fid})
            continue
        if required == {"source", "target"}:
            await tool(name, {"source": "internet", "target": asset_ids[0]})
            continue
        if "seeds" in required:
            await tool(name, {**limit, "seeds": list(asset_ids[:5])})
            continue
        if "base" in required:
            await tool(name, {"base": base, "target": dataset})
            await tool(name, {"base": dataset, "target": base})
            continue
        await tool(name, limit)
        for arg, schema in props.items():
            for choice in schema.get("enum", []) if arg in ("group_by", "sort_by") else []:
                await tool(name, {**limit, arg: choice})
    tag_keys: set[str] = set()
    for ref in asset_ids:
        asset = await layer.call_tool("get_asset", {"ref": ref, "dataset": dataset})
        tag_keys.update((asset.structured or {}).get("tags") or {})
    for arg in (*EXTRA_GROUPS, *FINDING_GROUP_KEYS):
        await tool("findings_summary", {"dataset": dataset, "group_by": arg})
    for arg in (*EXTRA_GROUPS, *GROUP_KEYS, *(f"tag:{k}" for k in sorted(tag_keys))):
        await tool("count_assets", {"dataset": dataset, "group_by": arg})
    for uri in layer.registry.resources:
        got[f"resource {uri}"] = [_wire(c) for c in await layer.read_resource(uri)]
    uris = [f"cloudg://datasets/{dataset}/summary", f"cloudg://datasets/{dataset}/assets",
            f"cloudg://datasets/{dataset}/findings", "cloudg://findings/severity/high",
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
            calls = [{"base": base, "target": dataset}]
        for args in calls:
            got[f"prompt {name} {args}"] = _wire(await layer.get_prompt(name, args))
        for a in prompt.arguments:
            for partial in PARTIALS:
                got[f"complete prompt {name}.{a.name} {partial!r}"] = await layer.complete(
                    {"type": "ref/prompt", "name": name}, {"name": a.name, "value": partial})
    for uri_template, template in layer.registry.templates.items():
        for var in template.completions:
            for partial in PARTIALS:
                got[f"complete {uri_template}.{var} {partial!r}"] = await layer.complete(
                    {"type": "ref/resource", "uri": uri_template}, {"name": var, "value": partial})
    out: dict[str, list[str]] = {}
    for surface, value in got.items():
        strings: list[str] = []
        strings_of(value, strings)
        strings.append(json.dumps(value, ensure_ascii=False, default=str))
        out[surface] = strings
    return out
