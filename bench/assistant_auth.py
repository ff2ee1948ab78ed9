"""What checking an assistant's credential adds to one MCP call, side by side with the call.

One real Jupyter server with the cloudg extension (``bench_add``, the standard policy for the
analyst and for the assistant, so the two differ only in how they authenticate). It prints:
(1) ``tools/call`` round trips through ``{base_url}cloudg/mcp`` with the server's token and
with an assistant's own token (rates, and the server's CPU per call), rounds interleaved; and
(2) the assistant check alone, in-process: the route guard every request passes, reading the
token, the credential store's ``verify`` (a ``stat`` of the store file, SHA-256, a lookup, in a
store of 20 assistants) and the cached principal. Target: (2) <= 2% of (1)'s CPU per call.
Run from the repository root: ``python bench/assistant_auth.py [--quick] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.endpoint import BENCH_REGISTRY, measure  # noqa: E402

#: (rounds, seconds per measurement, warm-up seconds, in-process repeats)
FULL_PLAN = (7, 1.5, 1.0, 200_000)
QUICK_PLAN = (1, 0.4, 0.2, 5_000)
TARGET = 0.02
#: Assistants in the store the in-process check looks tokens up in.
STORE_SIZE = 20


def _mint(server_url: str, owner_token: str, name: str) -> str:
    """A new assistant token (``POST cloudg/api/assistants``, as ``cloudg-nb config`` does),
    under the same profile as the analyst."""
    request = urllib.request.Request(
        f"{server_url}cloudg/api/assistants", method="POST",
        data=json.dumps({"name": name, "client": "other", "profile": "standard"}).encode(),
        headers={"Authorization": f"token {owner_token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.loads(response.read())["token"])


# -- (1) the call, end to end ---------------------------------------------------------------


def end_to_end(tmp: Path, rounds: int, seconds: float, warmup: float) -> dict[str, Any]:
    """Rates and server CPU µs per ``tools/call``, by token kind (one client, then eight)."""
    from tests.jupyter.server import jupyter_server

    args = [f"--CloudGExtension.registry={BENCH_REGISTRY}", "--CloudGExtension.datasets=[]",
            "--CloudGExtension.audit_log=", "--CloudGExtension.max_concurrency=0",
            "--CloudGExtension.policy=standard"]
    rows: dict[tuple[str, int], dict[str, list[float]]] = {}
    with jupyter_server(tmp, extra_args=args) as jupyter:
        tokens = {"server token (analyst)": jupyter.token,
                  "assistant token": _mint(jupyter.url, jupyter.token, "bench-bot")}
        pid = jupyter.proc.pid

        def once(token: str, clients: int, span: float) -> tuple[float, float | None]:
            return asyncio.run(measure(jupyter.endpoint, {"authorization": f"Bearer {token}"},
                                       "tools/call", clients, span, pid))

        for token in tokens.values():
            once(token, 8, warmup)
        for _ in range(rounds):  # rounds interleave the two: drift hits each alike
            for clients in (1, 8):
                for kind, token in tokens.items():
                    rate, cpu_us = once(token, clients, seconds)
                    cell = rows.setdefault((kind, clients), {"rps": [], "cpu_us": []})
                    cell["rps"].append(rate)
                    if cpu_us is not None:
                        cell["cpu_us"].append(cpu_us)
    return {f"{kind} x{clients}": {
        "token": kind, "clients": clients, "median_rps": statistics.median(cell["rps"]),
        "server_cpu_us": statistics.median(cell["cpu_us"]) if cell["cpu_us"] else None,
        "rounds_rps": cell["rps"]} for (kind, clients), cell in rows.items()}


# -- (2) the check alone ---------------------------------------------------------------------


def _per_call_us(fn: Callable[[], object], repeats: int) -> float:
    """Median over 5 rounds of the mean µs per ``fn()`` call."""
    means = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(repeats):
            fn()
        means.append(1e6 * (time.perf_counter() - started) / repeats)
    return statistics.median(means)


def check_alone(tmp: Path, repeats: int) -> dict[str, float]:
    """µs of each step the server takes for an assistant's MCP request before the handler
    forwards it (and of the route guard on an analyst's request)."""
    from cloudg_jupyter.assistant_auth import _CarriesAssistantToken, presented_assistant_token
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

    from cloudg_nb.assistants import AssistantStore, server_identity

    store = AssistantStore(tmp / "assistants.json")
    server = server_identity(tmp, "/")
    tokens = [store.mint(f"bot-{i}", client="other", profile="standard", server=server)[0]
              for i in range(STORE_SIZE)]
    token = tokens[STORE_SIZE // 2]
    path = "/cloudg/mcp"
    guard = _CarriesAssistantToken(frozenset({path}))
    headers = {"Host": "127.0.0.1:8888", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "Mcp-Session-Id": "0" * 32, "Mcp-Protocol-Version": "2025-06-18"}

    def request(auth: str, where: str) -> HTTPServerRequest:
        return HTTPServerRequest(start_line=RequestStartLine("POST", where, "HTTP/1.1"),
                                 headers=HTTPHeaders({**headers, "Authorization": auth}))

    assistant_mcp = request(f"Bearer {token}", path)
    assistant_elsewhere = request(f"Bearer {token}", "/api/contents")
    analyst_elsewhere = request("token " + "a" * 48, "/api/contents")
    scopes: dict[str, object] = {}
    record = store.verify(token)
    assert record is not None and store.verify(token + "x") is None
    scopes[f"{record.token_sha256}|{record.profile}"] = object()

    def whole() -> object:
        guard.match(assistant_mcp)
        found = store.verify(presented_assistant_token(assistant_mcp))
        assert found is not None and found.bound_to(server)
        return scopes[f"{found.token_sha256}|{found.profile}"]

    return {
        "route guard, analyst request": _per_call_us(lambda: guard.match(analyst_elsewhere),
                                                     repeats),
        "route guard, assistant token off the endpoint": _per_call_us(
            lambda: guard.match(assistant_elsewhere), repeats),
        "read the token": _per_call_us(lambda: presented_assistant_token(assistant_mcp),
                                       repeats),
        "store.verify (stat, SHA-256, lookup)": _per_call_us(lambda: store.verify(token),
                                                            repeats),
        "whole assistant check": _per_call_us(whole, repeats),
    }


# -- the run ----------------------------------------------------------------------------------


def run(quick: bool) -> dict[str, Any]:
    rounds, seconds, warmup, repeats = QUICK_PLAN if quick else FULL_PLAN
    with tempfile.TemporaryDirectory(prefix="bench-auth-") as tmp:
        calls = end_to_end(Path(tmp), rounds, seconds, warmup)
        steps = check_alone(Path(tmp), repeats)
    check = steps["whole assistant check"]
    ratios = []
    for clients in (1, 8):
        owner = calls[f"server token (analyst) x{clients}"]
        assistant = calls[f"assistant token x{clients}"]
        call_cpu = owner["server_cpu_us"]
        share = check / call_cpu if call_cpu else None
        ratios.append({
            "clients": clients, "check_us": check, "call_cpu_us": call_cpu, "share": share,
            "target": TARGET, "pass": None if share is None else share <= TARGET,
            "rate_assistant_over_analyst": assistant["median_rps"] / owner["median_rps"],
            "cpu_assistant_over_analyst": (assistant["server_cpu_us"] / call_cpu
                                           if call_cpu and assistant["server_cpu_us"] else None),
        })
    return {"calls": calls, "check_us": steps, "ratios": ratios,
            "plan": {"rounds": rounds, "seconds": seconds, "warmup_seconds": warmup,
                     "repeats": repeats, "store_size": STORE_SIZE},
            "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                            "machine": platform.machine()}}


def format_report(report: dict[str, Any]) -> str:
    plan = report["plan"]
    lines = [f"tools/call through {{base_url}}cloudg/mcp in one Jupyter server (median of "
             f"{plan['rounds']} rounds x {plan['seconds']} s; xN = N concurrent clients)", "",
             f"{'token':<26}{'clients':>8}{'calls/s':>12}{'server CPU µs/call':>22}"]
    for row in report["calls"].values():
        cpu = row["server_cpu_us"]
        lines.append(f"{row['token']:<26}{row['clients']:>8}{row['median_rps']:>12,.0f}"
                     f"{(f'{cpu:,.0f}' if cpu else '-'):>22}")
    lines += ["", f"the assistant check alone, in-process (µs per request; store of "
              f"{plan['store_size']} assistants; median of 5 x {plan['repeats']:,})"]
    for step, us in report["check_us"].items():
        lines.append(f"  {step:<48}{us:>8.2f}")
    lines += ["", f"check / call (target <= {TARGET:.0%} of the analyst's call CPU)"]
    for r in report["ratios"]:
        share = r["share"]
        verdict = "-" if share is None else ("ok" if r["pass"] else "MISS")
        cpu = r["cpu_assistant_over_analyst"]
        lines.append(
            f"  x{r['clients']:<3} {r['check_us']:.1f} µs / "
            f"{(r['call_cpu_us'] or 0):,.0f} µs = "
            f"{(f'{share:.2%}' if share is not None else '-'):>7} {verdict:<5}"
            f"  end to end, assistant / analyst: rate {r['rate_assistant_over_analyst']:.3f}, "
            f"CPU {(f'{cpu:.3f}' if cpu else '-')}")
    lines.append("  (end-to-end ratios carry the machine's noise, a few % either way; the "
                 "in-process check is the figure the target is read on)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short round: rough figures")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    report = run(args.quick)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
