"""What the audit log and metrics write for a request, field for field, for every way a request
ends: the lines and counts their middleware wrote before they became sinks of one call record
(the time and duration aside), whether they record on their own or as one recorder's sinks."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from cloudg_nb.layer.middleware import AuditLogMiddleware, CallRecorder, MetricsMiddleware
from tests.layer.call_outcomes import OUTCOMES, request

#: The keyed hashes (salt ``pepper``) of the arguments the requests send.
TOKEN_ABC, COUNT_2, TOPIC_NET = "0ac1cea04f7f9f65", "264de398b86f41a7", "a27564cc136723c7"
LOOKUP_ARGS = {"argument_keys": ["count", "token"],
               "argument_hashes": {"count": COUNT_2, "token": TOKEN_ABC}}
NO_ARGS: dict[str, Any] = {"argument_keys": [], "argument_hashes": {}}
ALICE = {"id": "alice", "roles": ["admin", "analyst"]}


def _line(kind: str, name: str, outcome: str, arguments: dict[str, Any], *,
          sensitivity: str = "confidential", request_id: str | None = "req-7",
          **extra: Any) -> dict[str, Any]:
    return {"event": "mcp.call", "kind": kind, "name": name, "outcome": outcome,
            "principal": ALICE, "request_id": request_id, "sensitivity": sensitivity,
            **arguments, **extra}


#: The audit line of each request, without ``ts`` and ``duration_ms``.
AUDIT_LINES = {
    "ok": _line("tool", "lookup", "ok", LOOKUP_ARGS),
    "tool error": _line("tool", "boom", "error", NO_ARGS, error={"code": "handler_error"}),
    "denied": _line("tool", "lookup", "denied", LOOKUP_ARGS,
                    error={"type": "AccessDeniedError", "code": -31001}),
    "rate limited": _line("tool", "lookup", "rate_limited", LOOKUP_ARGS,
                          error={"type": "RateLimitedError", "code": -31029}),
    "rejected": _line("tool", "lookup", "rejected", LOOKUP_ARGS,
                      error={"type": "InputRejectedError", "code": -32602}),
    "timeout": _line("tool", "slow", "error", NO_ARGS, error={"code": "timeout"}),
    "cancelled": _line("tool", "sleepy", "cancelled", NO_ARGS,
                       error={"type": "CancelledError", "code": None}),
    "redacted": _line("tool", "lookup", "ok", LOOKUP_ARGS,
                      transforms={"redacted": {"email": 1}}),
    "resource ok": _line("resource", "cloudg://status", "ok", NO_ARGS),
    "resource exception": _line("resource", "cloudg://broken", "exception", NO_ARGS,
                                error={"type": "ValueError", "code": None}),
    "resource layer error": _line("resource", "cloudg://missing", "exception", NO_ARGS,
                                  error={"type": "NotFoundError", "code": -32602}),
    "prompt": _line("prompt", "brief", "ok",
                    {"argument_keys": ["topic"], "argument_hashes": {"topic": TOPIC_NET}},
                    sensitivity="internal"),
    "completion": _line("completion", "brief", "ok", {
        "argument_keys": ["argument", "context", "value"],
        "argument_hashes": {"argument": "099dc082f9a5c541", "context": "408e28227c8212cc",
                            "value": "60decc3b544c65f7"}},
        sensitivity="internal", request_id=None),
}

#: ``kind:name`` -> (calls, errors, rejected) once every request above was made.
COUNTS = {
    "completion:brief": (1, 0, 0), "prompt:brief": (1, 0, 0),
    "resource:cloudg://broken": (1, 1, 0), "resource:cloudg://missing": (1, 1, 0),
    "resource:cloudg://status": (1, 0, 0), "tool:boom": (1, 1, 0),
    "tool:lookup": (5, 0, 3), "tool:sleepy": (1, 1, 0), "tool:slow": (1, 1, 0),
}

#: How the two recorders are put in a layer: each a middleware (the layer then runs them
#: as one) or the sinks of one CallRecorder.
SETUPS: dict[str, Callable[[AuditLogMiddleware, MetricsMiddleware], list[Any]]] = {
    "middleware": lambda audit, metrics: [audit, metrics],
    "sinks": lambda audit, metrics: [CallRecorder(metrics, audit)],
    "alone": lambda audit, metrics: [audit],
}
METRICS_SETUPS = {**SETUPS, "alone": lambda audit, metrics: [metrics]}


def test_the_tables_cover_every_way_a_request_ends() -> None:
    assert set(AUDIT_LINES) == set(OUTCOMES)


@pytest.mark.parametrize("setup", list(SETUPS))
@pytest.mark.parametrize("outcome", list(AUDIT_LINES))
async def test_the_audit_line_of_each_request(outcome: str, setup: str) -> None:
    stream = io.StringIO()
    audit = AuditLogMiddleware(stream=stream, salt="pepper")
    await request(outcome, SETUPS[setup](audit, MetricsMiddleware()))
    (line,) = [json.loads(text) for text in stream.getvalue().splitlines()]
    ts, duration = line.pop("ts"), line.pop("duration_ms")
    assert line == AUDIT_LINES[outcome]
    assert isinstance(ts, str) and isinstance(duration, int | float) and duration >= 0


@pytest.mark.parametrize("setup", list(METRICS_SETUPS))
async def test_the_metrics_of_every_request(setup: str) -> None:
    metrics = MetricsMiddleware()
    for outcome in OUTCOMES:
        await request(outcome, METRICS_SETUPS[setup](AuditLogMiddleware(stream=io.StringIO()),
                                                     metrics))
    snapshot = metrics.snapshot()
    assert {key: (s["calls"], s["errors"], s["rejected"]) for key, s in snapshot.items()} == (
        COUNTS)
    assert all(s["max_ms"] >= s["p95_ms"] >= 0 and s["last_call"] for s in snapshot.values())
