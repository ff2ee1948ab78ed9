"""AuditLogMiddleware: one JSON line per tool/resource/prompt/completion request.

Contract (layer reference §8): JSONL file created (or tightened) to mode 0600, or a stream,
or the ``cloudg.audit`` logger; each line carries ts, event, kind, name, principal,
request_id, argument keys and keyed hashes (16 hex chars of HMAC-SHA256 over canonical JSON),
duration, outcome and sensitivity; argument values are never written; a failing sink never
breaks the request.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import io
import json
import logging
import os
import re
import stat
from typing import Any

import pytest

from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.errors import InputRejectedError, NotFoundError, RateLimitedError
from cloudg_nb.layer.middleware import AuditLogMiddleware, ConcurrencyLimitMiddleware
from cloudg_nb.layer.middleware.audit import SALT_ENV
from cloudg_nb.layer.registry import Registry
from cloudg_nb.layer.specs import PromptArgument
from tests.layer.fakes import FakePolicy

SECRET = "sk-live-7f3a9c1e5b2d4f6a8c0e-TOPSECRET"


def canonical_hash(salt: bytes, value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hmac.new(salt, canonical.encode(), hashlib.sha256).hexdigest()[:16]


def read_lines(path: os.PathLike[str]) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def stream_lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


@pytest.fixture
def registry() -> Registry:
    reg = Registry()

    @reg.tool
    def lookup(ctx, token: str = "", count: int = 1) -> dict:
        return {"count": count}

    @reg.tool
    def boom(ctx) -> dict:
        raise RuntimeError("handler exploded")

    @reg.tool(sensitivity="restricted")
    def vault_read(ctx) -> dict:
        return {"ok": True}

    @reg.resource("cloudg://status")
    def status(ctx) -> dict:
        return {"status": "up"}

    def complete_topic(ctx, partial: str) -> list[str]:
        return [t for t in ("network", "identity") if t.startswith(partial)]

    @reg.prompt(arguments=[PromptArgument("topic", required=True, completion=complete_topic)])
    def brief(ctx, topic: str) -> str:
        return f"Brief me on {topic}"

    return reg


@pytest.fixture
def audit_path(tmp_path):
    return tmp_path / "logs" / "audit.jsonl"


@pytest.fixture
def audit(audit_path):
    mw = AuditLogMiddleware(path=audit_path, salt="pepper")
    yield mw
    mw.close()


# -- the file ------------------------------------------------------------------------------


def test_new_audit_file_is_created_with_mode_0600(audit, audit_path):
    assert audit_path.exists()
    assert stat.S_IMODE(os.stat(audit_path).st_mode) == 0o600


def test_existing_world_readable_file_is_tightened_to_0600(tmp_path):
    path = tmp_path / "audit.jsonl"
    path.write_text("", encoding="utf-8")
    os.chmod(path, 0o644)
    mw = AuditLogMiddleware(path=path, salt="pepper")
    try:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        mw.close()


async def test_existing_file_is_appended_to_not_truncated(tmp_path, registry, make_layer):
    path = tmp_path / "audit.jsonl"
    path.write_text('{"event": "earlier"}\n', encoding="utf-8")
    mw = AuditLogMiddleware(path=path, salt="pepper")
    try:
        await make_layer(registry, mw).call_tool("lookup")
    finally:
        mw.close()
    lines = read_lines(path)
    assert [line["event"] for line in lines] == ["earlier", "mcp.call"]


# -- one line per request ------------------------------------------------------------------


async def test_tool_call_writes_one_line_with_every_field(audit, audit_path, registry, make_layer):
    layer = make_layer(registry, audit)
    alice = Principal("alice", frozenset({"analyst", "admin"}))
    ctx = layer.context(alice, request_id="req-42")
    await layer.call_tool("lookup", {"token": "abc", "count": 3}, context=ctx)
    (line,) = read_lines(audit_path)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", line["ts"])
    assert line["event"] == "mcp.call"
    assert line["kind"] == "tool"
    assert line["name"] == "lookup"
    assert line["principal"] == {"id": "alice", "roles": ["admin", "analyst"]}
    assert line["request_id"] == "req-42"
    assert line["argument_keys"] == ["count", "token"]
    assert set(line["argument_hashes"]) == {"count", "token"}
    assert isinstance(line["duration_ms"], (int, float)) and line["duration_ms"] >= 0
    assert line["outcome"] == "ok"
    assert line["sensitivity"] == "confidential"


async def test_line_reports_the_spec_sensitivity(audit, audit_path, registry, make_layer):
    await make_layer(registry, audit).call_tool("vault_read")
    (line,) = read_lines(audit_path)
    assert line["sensitivity"] == "restricted"


async def test_duration_covers_the_handler_run(audit, audit_path, make_layer):
    reg = Registry()

    @reg.tool
    async def slow(ctx) -> dict:
        await asyncio.sleep(0.05)
        return {}

    await make_layer(reg, audit).call_tool("slow")
    (line,) = read_lines(audit_path)
    assert line["duration_ms"] >= 45


async def test_resource_read_writes_a_resource_line(audit, audit_path, registry, make_layer):
    await make_layer(registry, audit).read_resource("cloudg://status")
    (line,) = read_lines(audit_path)
    assert (line["kind"], line["name"], line["outcome"]) == ("resource", "cloudg://status", "ok")


async def test_prompt_get_writes_a_prompt_line(audit, audit_path, registry, make_layer):
    await make_layer(registry, audit).get_prompt("brief", {"topic": SECRET})
    (line,) = read_lines(audit_path)
    assert (line["kind"], line["name"], line["outcome"]) == ("prompt", "brief", "ok")
    assert line["argument_keys"] == ["topic"]


async def test_completion_writes_a_completion_line(audit, audit_path, registry, make_layer):
    result = await make_layer(registry, audit).complete(
        {"type": "ref/prompt", "name": "brief"}, {"name": "topic", "value": "net"}
    )
    assert result["values"] == ["network"]
    (line,) = read_lines(audit_path)
    assert (line["kind"], line["name"], line["outcome"]) == ("completion", "brief", "ok")


async def test_each_request_appends_exactly_one_line(audit, audit_path, registry, make_layer):
    layer = make_layer(registry, audit)
    await layer.call_tool("lookup")
    await layer.call_tool("lookup", {"count": 2})
    await layer.read_resource("cloudg://status")
    assert len(read_lines(audit_path)) == 3


# -- argument values -----------------------------------------------------------------------


async def test_argument_values_never_appear_in_the_file(
    audit, audit_path, registry, make_layer
):
    layer = make_layer(registry, audit)
    await layer.call_tool("lookup", {"token": SECRET, "count": 1})
    await layer.get_prompt("brief", {"topic": SECRET})
    await layer.complete(
        {"type": "ref/prompt", "name": "brief"}, {"name": "topic", "value": SECRET}
    )
    text = audit_path.read_text(encoding="utf-8")
    assert len(text.splitlines()) == 3
    assert SECRET not in text
    assert "TOPSECRET" not in text


async def test_values_of_refused_calls_never_appear_in_the_file(audit, audit_path, make_layer):
    reg = Registry()

    @reg.tool
    def x(ctx, token: str) -> dict:
        return {}

    layer = make_layer(reg, audit, policy=FakePolicy("d", denied=["x"]))
    await layer.call_tool("x", {"token": SECRET})
    await layer.call_tool("x", {"unknown": SECRET})
    assert SECRET not in audit_path.read_text(encoding="utf-8")


async def test_argument_hash_is_16_hex_chars_of_hmac_over_canonical_json(
    audit, audit_path, registry, make_layer
):
    await make_layer(registry, audit).call_tool("lookup", {"token": SECRET, "count": 7})
    (line,) = read_lines(audit_path)
    hashes = line["argument_hashes"]
    assert hashes["token"] == canonical_hash(b"pepper", SECRET)
    assert hashes["count"] == canonical_hash(b"pepper", 7)
    assert all(re.fullmatch(r"[0-9a-f]{16}", h) for h in hashes.values())


def test_hash_of_a_mapping_ignores_key_order():
    mw = AuditLogMiddleware(stream=io.StringIO(), salt="pepper")
    assert mw.hash_value({"b": 1, "a": [1, 2]}) == mw.hash_value({"a": [1, 2], "b": 1})
    assert mw.hash_value({"a": [1, 2], "b": 1}) == canonical_hash(b"pepper", {"a": [1, 2], "b": 1})


def test_same_salt_gives_the_same_hash_across_instances():
    one = AuditLogMiddleware(stream=io.StringIO(), salt="pepper")
    two = AuditLogMiddleware(stream=io.StringIO(), salt=b"pepper")
    assert one.hash_value(SECRET) == two.hash_value(SECRET)


def test_different_salts_give_different_hashes():
    one = AuditLogMiddleware(stream=io.StringIO(), salt="pepper")
    two = AuditLogMiddleware(stream=io.StringIO(), salt="paprika")
    assert one.hash_value(SECRET) != two.hash_value(SECRET)


def test_salt_is_read_from_the_environment_when_not_given(monkeypatch):
    monkeypatch.setenv(SALT_ENV, "from-env")
    mw = AuditLogMiddleware(stream=io.StringIO())
    assert mw.hash_value(SECRET) == canonical_hash(b"from-env", SECRET)


def test_without_any_salt_each_instance_draws_a_random_one(monkeypatch):
    monkeypatch.delenv(SALT_ENV, raising=False)
    one = AuditLogMiddleware(stream=io.StringIO())
    two = AuditLogMiddleware(stream=io.StringIO())
    assert one.hash_value(SECRET) != two.hash_value(SECRET)


async def test_hash_values_false_omits_argument_hashes(make_layer, registry):
    stream = io.StringIO()
    mw = AuditLogMiddleware(stream=stream, salt="pepper", hash_values=False)
    await make_layer(registry, mw).call_tool("lookup", {"token": SECRET})
    (line,) = stream_lines(stream)
    assert "argument_hashes" not in line
    assert line["argument_keys"] == ["token"]
    assert SECRET not in stream.getvalue()


# -- outcomes ------------------------------------------------------------------------------


async def test_successful_call_has_outcome_ok(audit, audit_path, registry, make_layer):
    await make_layer(registry, audit).call_tool("lookup")
    assert read_lines(audit_path)[0]["outcome"] == "ok"


async def test_handler_exception_has_outcome_error(audit, audit_path, registry, make_layer):
    result = await make_layer(registry, audit).call_tool("boom")
    assert result.is_error
    (line,) = read_lines(audit_path)
    assert line["outcome"] == "error"
    assert line["error"]["code"] == "handler_error"


async def test_policy_denial_has_outcome_denied(audit, audit_path, make_layer):
    reg = Registry()

    @reg.tool
    def x(ctx) -> dict:
        return {}

    layer = make_layer(reg, audit, policy=FakePolicy("d", denied=["x"]))
    result = await layer.call_tool("x")
    assert result.is_error
    (line,) = read_lines(audit_path)
    assert line["outcome"] == "denied"


def _refuse(value: Any, ctx: Any) -> Any:
    raise InputRejectedError("Argument looks like a secret; pass a reference instead")


async def test_input_rejection_has_outcome_rejected(audit, audit_path, registry, make_layer):
    layer = make_layer(registry, audit, policy=FakePolicy("rejecting", input=[_refuse]))
    result = await layer.call_tool("lookup", {"token": SECRET})
    assert result.is_error
    (line,) = read_lines(audit_path)
    assert line["outcome"] == "rejected"
    assert SECRET not in audit_path.read_text(encoding="utf-8")


async def test_policy_rate_limit_has_outcome_rate_limited(
    audit, audit_path, registry, make_layer, counting_policy
):
    counting_policy.refuse = RateLimitedError("Too many calls", data={"retry_after": 1.0})
    result = await make_layer(registry, audit, policy=counting_policy).call_tool("lookup")
    assert result.is_error
    (line,) = read_lines(audit_path)
    assert line["outcome"] == "rate_limited"


async def test_busy_concurrency_limit_has_outcome_rate_limited(audit, audit_path, make_layer):
    reg = Registry()
    entered, release = asyncio.Event(), asyncio.Event()

    @reg.tool
    async def hold(ctx) -> dict:
        entered.set()
        await release.wait()
        return {}

    limiter = ConcurrencyLimitMiddleware(limit=1, queue_timeout=0.01)
    layer = make_layer(reg, audit, limiter)
    first = asyncio.create_task(layer.call_tool("hold"))
    await entered.wait()
    refused = await layer.call_tool("hold")
    release.set()
    await first
    assert refused.is_error
    outcomes = [line["outcome"] for line in read_lines(audit_path)]
    assert outcomes == ["rate_limited", "ok"]


async def test_cancelled_call_has_outcome_cancelled(audit, audit_path, make_layer):
    reg = Registry()
    entered = asyncio.Event()

    @reg.tool
    async def sleepy(ctx) -> dict:
        entered.set()
        await asyncio.sleep(10)
        return {}

    task = asyncio.create_task(make_layer(reg, audit).call_tool("sleepy"))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (line,) = read_lines(audit_path)
    assert line["outcome"] == "cancelled"


async def test_resource_handler_exception_has_outcome_exception(audit, audit_path, make_layer):
    reg = Registry()

    @reg.resource("cloudg://broken")
    def broken(ctx) -> dict:
        raise ValueError("cannot read")

    with pytest.raises(ValueError):
        await make_layer(reg, audit).read_resource("cloudg://broken")
    (line,) = read_lines(audit_path)
    assert line["outcome"] == "exception"
    assert line["error"] == {"type": "ValueError", "code": None}


async def test_unknown_tool_never_reaches_the_audit_log(audit, audit_path, registry, make_layer):
    with pytest.raises(NotFoundError):
        await make_layer(registry, audit).call_tool("no_such_tool", {"token": SECRET})
    assert read_lines(audit_path) == []


def _count_a_redaction(value: Any, ctx: Any) -> Any:
    """An output step that reports one redaction per value."""
    ctx.count("redacted", "email")
    return value


async def test_transform_report_is_written_with_the_line(audit, audit_path, registry, make_layer):
    layer = make_layer(registry, audit, policy=FakePolicy("counting", output=[_count_a_redaction]))
    result = await layer.call_tool("lookup")
    (line,) = read_lines(audit_path)
    assert line["transforms"] == result.meta["cloudg/transforms"] == {"redacted": {"email": 1}}


# -- sinks ---------------------------------------------------------------------------------


async def test_stream_target_receives_one_json_line_per_call(registry, make_layer):
    stream = io.StringIO()
    layer = make_layer(registry, AuditLogMiddleware(stream=stream, salt="pepper"))
    await layer.call_tool("lookup")
    await layer.read_resource("cloudg://status")
    assert [line["kind"] for line in stream_lines(stream)] == ["tool", "resource"]


async def test_without_path_or_stream_lines_go_to_the_audit_logger(
    registry, make_layer, caplog
):
    caplog.set_level(logging.INFO, logger="cloudg.audit")
    await make_layer(registry, AuditLogMiddleware(salt="pepper")).call_tool("lookup")
    records = [r for r in caplog.records if r.name == "cloudg.audit"]
    assert len(records) == 1
    assert json.loads(records[0].getMessage())["name"] == "lookup"


class _BrokenStream(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError("disk full")


async def test_failing_stream_never_breaks_the_call(registry, make_layer):
    layer = make_layer(registry, AuditLogMiddleware(stream=_BrokenStream(), salt="pepper"))
    result = await layer.call_tool("lookup", {"count": 4})
    assert not result.is_error
    assert result.structured == {"count": 4}


async def test_failing_stream_does_not_mask_a_handler_error(registry, make_layer):
    layer = make_layer(registry, AuditLogMiddleware(stream=_BrokenStream(), salt="pepper"))
    result = await layer.call_tool("boom")
    assert result.is_error
    assert result.error_code == "handler_error"
