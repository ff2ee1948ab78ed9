"""The main job behind ``cloudg-nb demo`` (and ``make demo``): an analyst's tour of the
built-in demo estate through the governed layer, in-process and offline.

Every step is a real ``call_tool`` through the same door an AI assistant uses (policy,
privacy transforms, middleware, progress), so what it prints is what a model would see.
"""

from __future__ import annotations

import asyncio
import io
import json
import textwrap
from typing import Any

from .assembly import build_layer
from .layer import (
    AuditLogMiddleware,
    CachingMiddleware,
    CloudGMCPLayer,
    MetricsMiddleware,
    ToolResult,
)
from .layer.wire import CACHE_META, ERROR_DATA_META

__all__ = ["run_demo"]


def _say(title: str) -> None:
    print(f"\n== {title}")


def _line(text: str) -> None:
    print(textwrap.fill(text, width=96, initial_indent="   ", subsequent_indent="     ",
                        break_on_hyphens=False))


class _Tour:
    """Calls tools on one layer, collecting progress, and fails loudly if a step breaks."""

    def __init__(self, layer: CloudGMCPLayer) -> None:
        self.layer = layer

    async def call(self, name: str, arguments: dict[str, Any] | None = None,
                   *, progress: list[str] | None = None) -> dict[str, Any]:
        result = await self.raw(name, arguments, progress=progress)
        if result.is_error:
            raise RuntimeError(f"demo step {name} failed: {result.text}")
        return result.structured or {}

    async def raw(self, name: str, arguments: dict[str, Any] | None = None,
                  *, progress: list[str] | None = None) -> ToolResult:
        ctx = None
        if progress is not None:
            ctx = self.layer.context(
                progress_callback=lambda p, total, msg: progress.append(
                    f"{p:g}/{total:g} {msg or ''}".strip()
                )
            )
        return await self.layer.call_tool(name, arguments or {}, context=ctx)


async def run_demo(policy: str | None = "standard") -> None:
    audit_stream = io.StringIO()
    metrics = MetricsMiddleware()
    layer = build_layer(
        policy=policy,
        middleware=[AuditLogMiddleware(stream=audit_stream), metrics, CachingMiddleware()],
    )
    tour = _Tour(layer)
    changes: list[str] = []
    layer.on_change(lambda kind, uri: changes.append(f"{kind} {uri or ''}".strip()))
    print(f"cloudg-nb {layer.version}: the governed MCP layer, in-process, policy "
          f"'{layer.policy.name}', {len(layer.tools_wire())} tools")

    _say("1. Load the built-in demo estate (sample_estate)")
    progress: list[str] = []
    loaded = await tour.call("sample_estate", {"name": "demo"}, progress=progress)
    _line(f"dataset '{loaded['name']}': {loaded['assets']} assets, {loaded['edges']} edges, "
          f"{loaded['findings']} findings, {loaded['compliance_results']} compliance results")
    _line(f"progress reports: {len(progress)} (last: {progress[-1] if progress else '-'})")

    _say("2. What matters most (top_risks)")
    risks = await tour.call("top_risks", {"limit": 3})
    for item in risks["items"]:
        _line(f"#{item['rank']} {item['name']} ({item['type']}, {item['provider']}) score "
              f"{item['score']:.1f}: {item['max_severity']} {item['top_finding_id']} "
              f"{item['top_finding_title']}")

    _say("3. How an attacker reaches the customer database (attack_paths)")
    paths = await tour.call("attack_paths", {"target": "customers-db", "max_paths": 2})
    for path in paths["paths"]:
        hops = " -> ".join(n["name"] for n in path["nodes"])
        via = ", ".join(e["edge_type"] for e in path["edges"])
        _line(f"{hops}   [{via}]")

    _say("4. What breaks if the shared KMS key goes (blast_radius, a sync graph tool)")
    progress = []
    blast = await tour.call("blast_radius", {"ref": "prod-data-key"}, progress=progress)
    direct = [i["name"] for i in blast["items"] if i["depth"] == 1]
    _line(f"{blast['total']} dependents by depth {blast['by_depth']}; directly: "
          f"{', '.join(direct)}")
    _line(f"progress from the worker thread, in order, before the result: {len(progress)} "
          "reports")

    _say("5. Internet exposure on sensitive ports (internet_exposure)")
    exposure = await tour.call("internet_exposure", {"sensitive_only": True})
    for item in exposure["items"][:5]:
        ports = item.get("sensitive_ports") or item.get("ports")
        _line(f"{item['name']} ({item['type']}): ports {ports}")

    _say("6. What changed since last week (diff_datasets)")
    await tour.call("sample_estate", {"name": "drifted", "activate": False})
    drift = await tour.call("diff_datasets", {"base": "demo", "target": "demo-drifted"})
    removed = [a.get("name", a.get("id")) for a in drift["assets"]["removed"]]
    resolved = [f.get("id") for f in drift["findings"]["resolved"]]
    _line(f"assets removed: {removed}; findings resolved: {resolved}")
    _line(drift["headline"])

    _say("7. Privacy by default: what a model sees of web-1 and web-2 (get_asset)")
    web1 = await tour.call("get_asset", {"ref": "web-1"})
    web2 = await tour.call("get_asset", {"ref": "web-2"})
    _line(f"web-1 metadata.user_data: {web1['metadata']['user_data']}")
    _line(f"web-2 tags.owner_note: {web2['tags']['owner_note']}")

    _say("8. Mistakes come back as errors a model can act on")
    wrong = await tour.raw("get_asset", {"ref": "customer-db"})
    data = wrong.meta.get(ERROR_DATA_META, {})
    _line(f"code {wrong.error_code}: {wrong.text}")
    _line(f"close matches: {data.get('close_matches')}")

    _say("9. Shared workspace: a mutation notifies every listener (suppress_findings)")
    changes.clear()
    await tour.call("suppress_findings", {"ids": ["f-006"], "reason": "accepted risk"})
    _line(f"change events: {changes}")

    _say("10. Governance: metrics and audit (argument values only as keyed hashes)")
    await tour.call("findings_summary")
    cached = await tour.raw("findings_summary")
    _line(f"repeated read-only call served from cache: {cached.meta.get(CACHE_META)}")
    snapshot = metrics.snapshot()
    busiest = sorted(snapshot.items(), key=lambda kv: -kv[1]["calls"])[:3]
    for key, row in busiest:
        _line(f"{key}: {row['calls']} calls, avg {row['avg_ms']} ms, max {row['max_ms']} ms")
    lines = audit_stream.getvalue().splitlines()
    last = json.loads(lines[-1])
    _line(f"{len(lines)} audit lines; last: {last['name']} outcome={last['outcome']} "
          f"argument_hashes={last.get('argument_hashes')}")

    print("\nNext: `cloudg-nb serve --sample demo` hands this estate to an AI assistant over "
          "MCP;\n      `cloudg-nb config --client claude-code` prints the command to connect.")


def main() -> None:
    asyncio.run(run_demo())


if __name__ == "__main__":
    main()
