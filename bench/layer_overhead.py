"""Per-call overhead of CloudGMCPLayer.call_tool, side by side with FastMCP 4's in-process call.

Measures, for an async and a sync tool with the same trivial body, the median per-call cost
(µs) of: the bare handler; ``layer.call_tool`` without middleware; the layer with the full
middleware stack (audit to a file, metrics, concurrency limit, a never-caching cache, retry);
and the peer ``FastMCP.call_tool(name, arguments)`` — then the ratios the project targets.

Run from the repository root:  ``python bench/layer_overhead.py [--quick] [--json]``
(needs the ``bench`` extra: ``pip install -e '.[bench]'``). Figures, never a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import fastmcp
    from fastmcp import FastMCP
except ImportError:
    print(
        "bench/layer_overhead.py compares against the peer FastMCP 4, which is not installed.\n"
        "Install the bench extra from the repository root:  pip install -e '.[bench]'",
        file=sys.stderr,
    )
    sys.exit(2)

import pydantic

import cloudg_nb
from cloudg_nb.layer import (
    AuditLogMiddleware,
    CachingMiddleware,
    CloudGMCPLayer,
    ConcurrencyLimitMiddleware,
    MetricsMiddleware,
    Registry,
    RetryMiddleware,
)

EXPECTED = {"sum": 3}

#: (rounds, calls per round, warm-up calls) per flavour; sync calls cross threads, so fewer.
#: Thread hops are noisy (wake-up latency), so sync gets more, shorter rounds.
FULL_PLAN = {"async": (5, 2000, 500), "sync": (9, 500, 200)}
QUICK_PLAN = {"async": (3, 200, 50), "sync": (3, 50, 20)}

#: Targets, as ratios of per-call cost to FastMCP's for the same flavour.
TARGETS = (
    ("bare layer / FastMCP", "layer", {"async": 0.3, "sync": 0.5}),
    ("full stack / FastMCP", "full", {"async": 0.6, "sync": 0.6}),
)

CACHE_NOTE = "caching predicate never caches: every call runs the tool"


# -- the tools ---------------------------------------------------------------------------


async def add_async(ctx: Any, a: int, b: int) -> dict:
    return {"sum": a + b}


def add_sync(ctx: Any, a: int, b: int) -> dict:
    return {"sum": a + b}


async def fastmcp_add_async(a: int, b: int) -> dict:
    return {"sum": a + b}


def fastmcp_add_sync(a: int, b: int) -> dict:
    return {"sum": a + b}


# -- cases -------------------------------------------------------------------------------


@dataclass
class Case:
    """One row: ``call`` makes one call (a coroutine when ``awaited``)."""

    flavour: str
    key: str
    label: str
    call: Callable[[], Any]
    awaited: bool = True
    note: str = ""
    rounds_us: list[float] = field(default_factory=list)

    @property
    def median_us(self) -> float:
        return statistics.median(self.rounds_us)


def _registry(handler: Callable[..., Any]) -> Registry:
    reg = Registry()
    reg.tool(name="add")(handler)
    return reg


def _full_stack(audit_path: Path) -> list[Any]:
    """Audit → Metrics → ConcurrencyLimit → Caching → Retry (outermost first)."""
    return [
        AuditLogMiddleware(path=audit_path),
        MetricsMiddleware(),
        ConcurrencyLimitMiddleware(),
        CachingMiddleware(predicate=lambda info: False),
        RetryMiddleware(),
    ]


def _fastmcp_server(handler: Callable[..., Any]) -> FastMCP:
    mcp = FastMCP(f"bench-{handler.__name__}")
    mcp.tool(name="add")(handler)
    return mcp


def build_cases(tmp: Path) -> tuple[list[Case], list[AuditLogMiddleware]]:
    cases: list[Case] = []
    audits: list[AuditLogMiddleware] = []
    for flavour, handler, peer in (
        ("async", add_async, fastmcp_add_async),
        ("sync", add_sync, fastmcp_add_sync),
    ):
        bare = CloudGMCPLayer(registry=_registry(handler), policy="open")
        stack = _full_stack(tmp / f"audit-{flavour}.jsonl")
        audits.append(stack[0])
        full = CloudGMCPLayer(registry=_registry(handler), policy="open", middleware=stack)
        mcp = _fastmcp_server(peer)
        ctx = bare.context()

        if flavour == "async":
            cases.append(Case(flavour, "handler", "bare handler (awaited)",
                              lambda h=handler, c=ctx: h(c, a=1, b=2)))
        else:
            cases.append(Case(flavour, "handler", "bare handler (called)",
                              lambda h=handler, c=ctx: h(c, a=1, b=2), awaited=False))
            cases.append(Case(flavour, "to_thread", "bare handler via asyncio.to_thread",
                              lambda h=handler, c=ctx: asyncio.to_thread(h, c, a=1, b=2),
                              note="reference: how the layer runs sync handlers"))
        cases.append(Case(flavour, "layer", "layer.call_tool, no middleware",
                          lambda lay=bare: lay.call_tool("add", {"a": 1, "b": 2})))
        cases.append(Case(flavour, "full", "layer.call_tool, full middleware stack",
                          lambda lay=full: lay.call_tool("add", {"a": 1, "b": 2}),
                          note="cache never hits"))
        cases.append(Case(flavour, "fastmcp", f"FastMCP {fastmcp.__version__} call_tool",
                          lambda m=mcp: m.call_tool("add", {"a": 1, "b": 2})))
    return cases, audits


# -- measurement -------------------------------------------------------------------------


def _payload(result: Any) -> Any:
    """The structured value of any row's result (handler dict, ToolResult of either side)."""
    if isinstance(result, dict):
        return result
    if getattr(result, "is_error", False):
        return None
    for attr in ("structured", "structured_content"):
        value = getattr(result, attr, None)
        if value is not None:
            return value
    return None


async def _one(case: Case) -> Any:
    out = case.call()
    return await out if case.awaited else out


async def check(cases: list[Case]) -> None:
    """Every row must compute the sum, so no row times an error path."""
    for case in cases:
        got = _payload(await _one(case))
        if got != EXPECTED:
            raise SystemExit(f"{case.flavour} / {case.label}: expected {EXPECTED}, got {got!r}")


async def _round(case: Case, calls: int) -> float:
    """Mean µs per call over ``calls`` back-to-back calls."""
    call = case.call
    if case.awaited:
        start = time.perf_counter_ns()
        for _ in range(calls):
            await call()
        elapsed = time.perf_counter_ns() - start
    else:
        start = time.perf_counter_ns()
        for _ in range(calls):
            call()
        elapsed = time.perf_counter_ns() - start
    return elapsed / calls / 1000


async def measure(cases: list[Case], plan: dict[str, tuple[int, int, int]]) -> None:
    """Warm up every row, then interleave rounds so drift spreads over all rows alike."""
    for case in cases:
        _, _, warmup = plan[case.flavour]
        for _ in range(warmup):
            await _one(case)
    rounds = max(r for r, _, _ in plan.values())
    for i in range(rounds):
        for case in cases:
            n_rounds, calls, _ = plan[case.flavour]
            if i < n_rounds:
                gc.collect()  # garbage left by one row is not billed to the next
                case.rounds_us.append(await _round(case, calls))


def ratios(cases: list[Case]) -> list[dict[str, Any]]:
    by_key = {(c.flavour, c.key): c for c in cases}
    out = []
    for name, key, targets in TARGETS:
        for flavour, target in targets.items():
            ours, peer = by_key[(flavour, key)], by_key[(flavour, "fastmcp")]
            value = ours.median_us / peer.median_us
            # Rounds interleave, so round i of both rows ran close in time: the median of
            # per-round ratios shrugs off drift that the ratio of medians does not.
            pairs = zip(ours.rounds_us, peer.rounds_us, strict=True)
            paired = statistics.median(a / b for a, b in pairs)
            out.append({"name": name, "flavour": flavour, "value": round(value, 3),
                        "paired": round(paired, 3), "target": target, "pass": value <= target})
    return out


# -- output ------------------------------------------------------------------------------


def environment(quick: bool, plan: dict[str, tuple[int, int, int]]) -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "cloudg_nb": cloudg_nb.__version__,
        "fastmcp": fastmcp.__version__,
        "pydantic": pydantic.VERSION,
        "quick": quick,
        "plan": {k: {"rounds": r, "calls_per_round": n, "warmup": w}
                 for k, (r, n, w) in plan.items()},
        "statistic": "median of per-round mean µs per call",
    }


def print_table(cases: list[Case], rats: list[dict[str, Any]], env: dict[str, Any]) -> None:
    print(f"cloudg-nb {env['cloudg_nb']} vs FastMCP {env['fastmcp']} — "
          f"Python {env['python']} on {env['platform']}, {env['cpus']} CPUs")
    plan = ", ".join(f"{k}: {v['rounds']} rounds × {v['calls_per_round']} calls "
                     f"(+{v['warmup']} warm-up)" for k, v in env["plan"].items())
    print(f"median of per-round means, µs per call ({plan})")
    print()
    width = max(len(c.label) for c in cases)
    header = f"{'flavour':<7}  {'case':<{width}}  {'median':>9}  {'min':>9}  {'max':>9}"
    print(header)
    print("-" * len(header))
    flavour = None
    for c in cases:
        if flavour is not None and c.flavour != flavour:
            print()
        flavour = c.flavour
        print(f"{c.flavour:<7}  {c.label:<{width}}  {c.median_us:9.2f}  "
              f"{min(c.rounds_us):9.2f}  {max(c.rounds_us):9.2f}"
              + (f"  ({c.note})" if c.note else ""))
    print()
    print("full stack = Audit(file) → Metrics → ConcurrencyLimit → Caching → Retry; "
          + CACHE_NOTE)
    print()
    print("ratio of medians vs target (paired: median of per-round ratios, for noise)")
    print(f"{'ratio':<22}  {'async':<32}  sync")
    for name, _, _ in TARGETS:
        cells = []
        for flavour in ("async", "sync"):
            r = next(x for x in rats if x["name"] == name and x["flavour"] == flavour)
            mark = "PASS" if r["pass"] else "MISS"
            cells.append(f"{r['value']:.3f} ≤ {r['target']:.1f} {mark} (paired {r['paired']:.3f})")
        print(f"{name:<22}  {cells[0]:<32}  {cells[1]}")


async def run(quick: bool) -> dict[str, Any]:
    plan = QUICK_PLAN if quick else FULL_PLAN
    with tempfile.TemporaryDirectory(prefix="cloudg-bench-") as tmp:
        cases, audits = build_cases(Path(tmp))
        try:
            await check(cases)
            await measure(cases, plan)
        finally:
            for audit in audits:
                audit.close()
        audit_lines = sum(
            len((Path(tmp) / f"audit-{f}.jsonl").read_text().splitlines())
            for f in ("async", "sync")
        )
    env = environment(quick, plan)
    env["audit_lines_written"] = audit_lines
    return {
        "environment": env,
        "rows": [
            {"flavour": c.flavour, "case": c.key, "label": c.label,
             "median_us": round(c.median_us, 3), "min_us": round(min(c.rounds_us), 3),
             "max_us": round(max(c.rounds_us), 3),
             "rounds_us": [round(x, 3) for x in c.rounds_us], "note": c.note}
            for c in cases
        ],
        "ratios": ratios(cases),
        "_cases": cases,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke run)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    opts = parser.parse_args(argv)
    if not fastmcp.__version__.startswith("4."):
        print(f"warning: FastMCP {fastmcp.__version__} found; these targets are set against "
              "FastMCP 4", file=sys.stderr)
    report = asyncio.run(run(opts.quick))
    cases: list[Case] = report.pop("_cases")
    if opts.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_table(cases, report["ratios"], report["environment"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
