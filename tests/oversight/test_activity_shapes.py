"""What the activity feed shows of a request, field for field, for every way a request ends:
the entries its middleware made before it became a sink of one call record (the time and
duration aside), recording on its own or as one recorder's sink. Completions are not shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cloudg_nb.layer.middleware import CallRecorder
from cloudg_nb.oversight import ActivityLog, ActivityMiddleware
from tests.layer.call_outcomes import OUTCOMES, request


def _entry(kind: str, name: str, outcome: str, *, error_code: str | int | None = None,
           redacted: int = 0) -> dict[str, Any]:
    return {"seq": 1, "principal": "alice", "assistant": False, "kind": kind, "name": name,
            "outcome": outcome, "redacted": redacted, "approval": None,
            "error_code": error_code}


#: The entry of each request, without ``time`` and ``duration_ms`` (None: no entry).
ENTRIES: dict[str, dict[str, Any] | None] = {
    "ok": _entry("tool", "lookup", "ok"),
    "tool error": _entry("tool", "boom", "error", error_code="handler_error"),
    "denied": _entry("tool", "lookup", "denied", error_code=-31001),
    "rate limited": _entry("tool", "lookup", "rate_limited", error_code=-31029),
    "rejected": _entry("tool", "lookup", "rejected", error_code=-32602),
    "timeout": _entry("tool", "slow", "error", error_code="timeout"),
    "cancelled": _entry("tool", "sleepy", "cancelled"),
    "redacted": _entry("tool", "lookup", "ok", redacted=1),
    "resource ok": _entry("resource", "cloudg://status", "ok"),
    "resource exception": _entry("resource", "cloudg://broken", "exception"),
    # a layer error reaches the caller as an error, so the feed says error
    "resource layer error": _entry("resource", "cloudg://missing", "error", error_code=-32602),
    "prompt": _entry("prompt", "brief", "ok"),
    "completion": None,
}

SETUPS: dict[str, Callable[[ActivityMiddleware], list[Any]]] = {
    "middleware": lambda activity: [activity],
    "sink": lambda activity: [CallRecorder(activity)],
}


def test_the_table_covers_every_way_a_request_ends() -> None:
    assert set(ENTRIES) == set(OUTCOMES)


@pytest.mark.parametrize("setup", list(SETUPS))
@pytest.mark.parametrize("outcome", list(ENTRIES))
async def test_the_activity_entry_of_each_request(outcome: str, setup: str) -> None:
    log = ActivityLog()
    await request(outcome, SETUPS[setup](ActivityMiddleware(log)))
    shown = [entry.to_dict() for entry in log.entries()]
    for entry in shown:
        assert isinstance(entry.pop("time"), str) and entry.pop("duration_ms") >= 0
    assert shown == ([] if ENTRIES[outcome] is None else [ENTRIES[outcome]])


async def test_an_assistants_entry_says_so() -> None:
    log = ActivityLog()
    await request("ok", [CallRecorder(ActivityMiddleware(log, lambda p: p.id == "alice"))])
    assert [e.assistant for e in log.entries()] == [True]
