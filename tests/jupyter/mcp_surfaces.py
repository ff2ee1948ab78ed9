"""Everything an MCP client can read from the cloudg endpoint over a loaded estate, as strings.

``collect(session, ...)`` drives a real ``mcp.Client`` session (``protocol.harness``): it lists
and calls every read-only tool (each ``group_by`` / ``sort_by`` choice, each given id for tools
that take one, ``group_by=tag:<key>`` for every tag key), lists and reads every resource,
reads the templates over the given ids, renders every prompt, asks every completion with
several partial values, and walks error paths (unknown and near-miss ids, unknown resources).
It returns, per surface, every string the client received: result JSON, error messages and
their data, and the notifications the server sent meanwhile. Privacy acceptance tests
search these strings for what must not leave the server.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from mcp import MCPError
from mcp_types import PromptReference, ResourceTemplateReference

from tests.protocol.harness import ClientSession

#: Tools that change the workspace, wait for an approval or need a caller's own value.
SKIPPED_TOOLS = frozenset((
    "load_dataset", "sample_estate", "select_dataset", "unload_dataset", "snapshot_dataset",
    "export_dataset", "reveal_token", "suppress_findings", "unsuppress_findings",
    "preview_transform", "progress_then_sleep",
))
PARTIALS = ("", "a", "c", "k", "r", "s", "g", "x", "1")


def _dump(value: Any) -> str:
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(value, ensure_ascii=False, default=str)


def collect(session: ClientSession, *, dataset: str, asset_ids: Sequence[str],
            finding_ids: Sequence[str], refs: Sequence[str] = (),
            tag_keys: Sequence[str] = ()) -> dict[str, list[str]]:
    """Every string the client received, by surface. ``refs`` are extra (near-miss or
    unknown) references tried wherever an id goes; ``tag_keys`` the estate's tag keys."""
    got: dict[str, list[str]] = {}

    def record(surface: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            value = fn(*args)
        except MCPError as exc:  # an error is a surface too
            got[surface] = [str(exc), _dump(getattr(exc, "error", None))]
            return None
        got[surface] = [_dump(value)]
        return value

    tools = record("tools/list", session.list_tools).tools
    ids = [*asset_ids, *refs]
    for tool in tools:
        if tool.name in SKIPPED_TOOLS:
            continue
        schema = tool.input_schema or {}
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        base = {"dataset": dataset} if "dataset" in props else {}
        if "limit" in props:
            base["limit"] = 500

        def call(args: dict[str, Any], name: str = tool.name) -> None:
            record(f"tool {name} {json.dumps(args)}", session.call_tool, name, args)

        if "ref" in required:
            for ref in ids:
                call({**base, "ref": ref})
        elif "finding_id" in required:
            for fid in [*finding_ids, "c-99999", "c-00"]:
                call({**base, "finding_id": fid})
        elif required == {"source", "target"}:
            call({**base, "source": "internet", "target": asset_ids[0]})
        elif "seeds" in required:
            for choice in props.get("format", {}).get("enum", [None]):
                extra = {"format": choice} if choice else {}
                call({**base, "seeds": list(asset_ids), **extra})
        elif "base" in required:
            call({"base": "demo", "target": dataset, "limit": 500})
            call({"base": dataset, "target": "demo", "limit": 500})
        elif "value" in required or "token" in required:
            continue
        else:
            call(base)
            for arg, spec in props.items():
                if arg in ("group_by", "sort_by", "metric", "format"):
                    for choice in spec.get("enum", []):
                        call({**base, arg: choice})
            if "group_by" in props:
                for key in tag_keys:
                    call({**base, "group_by": f"tag:{key}"})
                for free in ("title", "description", "evidence", "remediation", "name", "tag"):
                    call({**base, "group_by": free})
            if "key" in props:
                for key in tag_keys:
                    call({**base, "key": key})
            if "query" in props:
                for query in ("key", "password", "secret", "token", "auth", "classes"):
                    call({**base, "query": query})
    listed = record("resources/list", session.list_resources)
    for resource in getattr(listed, "resources", []):
        record(f"resource {resource.uri}", session.read_resource, str(resource.uri))
    record("resources/templates/list", session.list_resource_templates)
    uris = [f"cloudg://datasets/{dataset}/summary", f"cloudg://datasets/{dataset}/assets",
            f"cloudg://datasets/{dataset}/findings", "cloudg://findings/severity/HIGH",
            "cloudg://compliance/NIST-800-53-Revision-5", "cloudg://findings/summary"]
    uris += [f"cloudg://assets/{ref}" for ref in ids]
    uris += [f"cloudg://findings/{fid}" for fid in [*finding_ids, "c-99999"]]
    for uri in uris:
        record(f"template {uri}", session.read_resource, uri)
    prompts = record("prompts/list", session.list_prompts)
    for prompt in getattr(prompts, "prompts", []):
        names = {a.name for a in prompt.arguments or []}
        calls: list[dict[str, str]] = [{"dataset": dataset} if "dataset" in names else {}]
        if "ref" in names:
            calls = [{"ref": ref, "dataset": dataset} for ref in ids]
        elif "finding_id" in names:
            calls = [{"finding_id": fid, "dataset": dataset} for fid in finding_ids]
        elif "base" in names:
            calls = [{"base": dataset, "target": dataset}]
        for args in calls:
            record(f"prompt {prompt.name} {args}", session.get_prompt, prompt.name, args)
        for arg in prompt.arguments or []:
            for partial in PARTIALS:
                record(f"complete prompt {prompt.name}.{arg.name} {partial!r}",
                       session.complete, PromptReference(name=prompt.name),
                       {"name": arg.name, "value": partial})
    templates = record("templates", session.list_resource_templates)
    for template in getattr(templates, "resource_templates", []):
        variables = [v.strip("{}+") for v in template.uri_template.split("/")
                     if v.startswith("{")]
        for var in variables:
            for partial in PARTIALS:
                record(f"complete {template.uri_template}.{var} {partial!r}", session.complete,
                       ResourceTemplateReference(uri=template.uri_template),
                       {"name": var, "value": partial})
    got["notifications"] = [_dump(note) for note in list(session.notes)]
    return got
