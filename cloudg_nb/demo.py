"""The in-process walkthrough behind ``cloudg-nb demo`` (and ``make demo``).

It builds a layer over the built-in catalog plus a tiny demo registry and shows, step by
step, what every caller gets from the one door: listings, structured results, progress from
a sync tool in a worker thread, error results, timeouts, prompts, resources, completions,
change events, the audit trail and metrics.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from typing import Annotated, Any

from pydantic import Field

from .catalog import default_registry
from .layer import (
    AuditLogMiddleware,
    CachingMiddleware,
    CloudGMCPLayer,
    MetricsMiddleware,
    PromptArgument,
    Registry,
    ToolContext,
)

__all__ = ["demo_registry", "run_demo"]

_ASSETS = [f"web-{i:02d}" for i in range(1, 13)] + ["pii-db", "pii-bucket", "app-role"]


def demo_registry() -> Registry:
    """The built-in catalog plus a few demo tools, a template and a prompt."""
    reg = default_registry()

    @reg.tool(title="Scan estate", category="demo")
    def scan_estate(
        ctx: ToolContext, assets: Annotated[int, Field(ge=1, le=10_000)] = 300
    ) -> dict[str, Any]:
        """Walk a synthetic estate of N assets in a worker thread, reporting progress at
        every tenth of the way, and count the internet-exposed ones."""
        exposed = 0
        step = max(1, assets // 10)
        for i in range(assets):
            exposed += i % 7 == 0
            if i % step == 0:
                ctx.report_progress_sync(i, assets, f"scanned {i} of {assets}")
            time.sleep(0.0005)
        ctx.report_progress_sync(assets, assets, "done")
        ctx.link("cloudg://workspace", "workspace", title="Workspace the scan ran on")
        return {"assets": assets, "internet_exposed": exposed}

    @reg.tool(title="Slow probe", category="demo", timeout_seconds=0.2)
    async def slow_probe(ctx: ToolContext, seconds: float = 1.0) -> dict[str, float]:
        """Wait for the given number of seconds; its 0.2 s timeout shows what a caller
        gets when a tool runs too long."""
        await asyncio.sleep(seconds)
        return {"slept": seconds}

    @reg.resource_template(
        "cloudg://demo/assets/{name}",
        title="Demo asset",
        category="demo",
        completions={"name": lambda ctx, partial: [a for a in _ASSETS if a.startswith(partial)]},
    )
    def demo_asset(ctx: ToolContext, name: str) -> dict[str, Any]:
        """One asset of the demo estate by name."""
        return {"name": name, "internet_exposed": name.startswith("web")}

    @reg.prompt(
        title="Investigate asset",
        category="demo",
        arguments=[PromptArgument("name", "Asset name", required=True)],
    )
    def investigate(ctx: ToolContext, name: str) -> str:
        """Ask the assistant to investigate one asset."""
        return f"Investigate {name}: what can reach it, what it can reach, and its findings."

    return reg


def _show(title: str, value: Any) -> None:
    print(f"\n== {title}")
    print(value if isinstance(value, str) else json.dumps(value, indent=2, default=str))


async def run_demo() -> None:
    audit_stream = io.StringIO()
    metrics = MetricsMiddleware()
    layer = CloudGMCPLayer(
        registry=demo_registry(),
        policy="standard",
        middleware=[AuditLogMiddleware(stream=audit_stream), metrics, CachingMiddleware()],
    )
    print(f"cloudg-nb {layer.version}: in-process layer, policy '{layer.policy.name}'")
    _show("Tools", [f"{t['name']}: {t.get('title', '')}" for t in layer.tools_wire()])

    progress: list[str] = []
    ctx = layer.context(
        progress_callback=lambda p, total, msg: progress.append(f"{p:g}/{total:g} {msg}")
    )
    result = await layer.call_tool("scan_estate", {"assets": "300"}, context=ctx)
    _show("scan_estate progress (sync tool in a worker thread)", progress)
    _show("scan_estate result (arguments coerced: '300' -> 300)", result.to_wire())

    bad = await layer.call_tool("scan_estate", {"assets": -5, "extra": "x"})
    _show("Bad arguments -> an error result the model can read", bad.to_wire())

    slow = await layer.call_tool("slow_probe")
    _show("Timeout -> error result", slow.to_wire())

    changes: list[tuple[str, str | None]] = []
    layer.on_change(lambda kind, uri: changes.append((kind, uri)))
    layer.workspace.notify("resource", "cloudg://workspace")
    _show("Change events reach listeners", changes)

    contents = await layer.read_resource("cloudg://demo/assets/pii-db")
    _show("Template read", [c.to_wire() for c in contents])
    done = await layer.complete(
        {"type": "ref/resource", "uri": "cloudg://demo/assets/{name}"},
        {"name": "name", "value": "web-0"},
    )
    _show("Completion of {name} from 'web-0'", done)
    prompt = await layer.get_prompt("investigate", {"name": "pii-db"})
    _show("Prompt", prompt.to_wire())

    await layer.call_tool("list_capabilities")
    cached = await layer.call_tool("list_capabilities")
    _show("Second identical read-only call", {"cloudg/cache": cached.meta.get("cloudg/cache")})
    _show("Metrics", metrics.snapshot())
    lines = audit_stream.getvalue().splitlines()
    _show(f"Audit trail ({len(lines)} lines; values only as keyed hashes), last line",
          json.loads(lines[-1]))


def main() -> None:
    asyncio.run(run_demo())


if __name__ == "__main__":
    main()
