"""Result shaping: what a handler returned (or an error) as the result a caller receives,
with every text-bearing part through the request's output pipeline (``CallPlan``).

Tool results carry the transform report and duration in ``meta``; errors never fall back to
an original message the policy dropped (``WITHHELD`` instead); binary payloads stay as is.
"""

from __future__ import annotations

import base64
import copy
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from .column_results import (
    COLUMNS_UNAVAILABLE,
    Columns,
    ColumnsUnavailable,
    ColumnTransform,
    column_transform,
    is_columns,
)
from .content import (
    BlobResourceContents,
    PromptMessage,
    PromptResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
)
from .errors import MCPLayerError
from .jsonable import render_text, to_jsonable, truncate_text
from .pipeline import merge_report
from .plan import CallPlan
from .surfaces import (
    WITHHELD,
    transform_block,
    transform_link,
    transform_meta,
    transform_resource_contents,
)
from .wire import DURATION_META, ERROR_CODE_META, ERROR_DATA_META, TRANSFORMS_META

__all__ = [
    "error_result", "redacted_error", "tool_result", "resource_contents", "prompt_result",
]


def error_result(
    message: str,
    plan: CallPlan | None,
    code: int | str,
    data: Any = None,
    started: float | None = None,
) -> ToolResult:
    """An ``is_error`` tool result: message and data through the output pipeline, the code
    (and data, report, duration) in ``meta``."""
    report: dict[str, Any] = {}
    if plan is not None:
        payload, report = plan.transform({"message": message, "data": to_jsonable(data)})
        # Never fall back to the original: a message the policy dropped stays withheld.
        kept = payload.get("message") if isinstance(payload, dict) else None
        message = kept if isinstance(kept, str) and kept else WITHHELD
        data = payload.get("data") if isinstance(payload, dict) else None
    meta: dict[str, Any] = {ERROR_CODE_META: code}
    if data is not None:
        meta[ERROR_DATA_META] = to_jsonable(data)
    if report:
        meta[TRANSFORMS_META] = report
    if started is not None:
        meta[DURATION_META] = round((time.monotonic() - started) * 1000, 3)
    return ToolResult(content=[TextContent(message)], is_error=True, meta=meta)


def redacted_error(exc: MCPLayerError, plan: CallPlan) -> MCPLayerError:
    """``exc`` with its message and data through the output pipeline, for errors that
    propagate to the adapter (resources, prompts) instead of becoming error results."""
    if not plan.output:
        return exc
    payload, _ = plan.transform({"message": exc.message, "data": to_jsonable(exc.data)})
    kept = payload.get("message") if isinstance(payload, dict) else None
    clone = copy.copy(exc)
    clone.message = kept if isinstance(kept, str) and kept else WITHHELD
    clone.data = payload.get("data") if isinstance(payload, dict) else None
    clone.args = (clone.message,)
    return clone


def has_columns(raw: Any) -> bool:
    """Whether a handler's return value holds ``Columns`` parts (whose transform and
    encoding is CPU work for seconds at 500k rows: the layer runs it in a worker)."""
    return isinstance(raw, dict) and any(is_columns(v) for v in raw.values())


#: ``progress(step, total, message)`` as ``ToolContext.report_progress_sync`` takes it.
StepReport = Callable[[float, float | None, str | None], None]


def tool_result(
    raw: Any, plan: CallPlan, links: Iterable[ResourceLink], started: float,
    max_output_chars: int | None, progress: StepReport | None = None,
) -> ToolResult:
    """A handler's return value as a tool result: a ``ToolResult`` part by part, anything
    else as structured content plus its text (cut at ``max_output_chars``); then the links
    the handler attached (``ctx.link``)."""
    report: dict[str, Any] = {}
    if isinstance(raw, ToolResult):
        result = _transform_tool_result(raw, plan, report)
    else:
        columns: dict[str, Columns] = {}
        if has_columns(raw):
            columns = {k: v for k, v in raw.items() if is_columns(v)}
            raw = {k: v for k, v in raw.items() if k not in columns}
        value = to_jsonable(raw)
        if not isinstance(value, dict):
            value = {"result": value}
        value, rep = plan.transform(value)
        merge_report(report, rep)
        text_value = value
        if columns:  # encoded after the rest; the text names them without their data
            transform = column_transform(plan, report)
            if transform is not None and progress is not None:
                transform = _reporting(transform, progress)
            value = dict(value)
            text_value = dict(value)
            try:
                for key, part in columns.items():
                    value[key] = part.encode(transform)
                    text_value[key] = {k: v for k, v in value[key].items() if k != "data"}
            except ColumnsUnavailable as exc:
                return error_result(
                    "This policy reshapes rows in a way columns cannot carry; read the "
                    "result as pages (without _meta cloudg/format).", None,
                    COLUMNS_UNAVAILABLE, {"reason": str(exc)}, started)
        text, removed = truncate_text(render_text(text_value), max_output_chars)
        if removed:
            report["truncated_chars"] = report.get("truncated_chars", 0) + removed
        result = ToolResult(content=[TextContent(text)], structured=value)
    if links:
        result.content.extend(_transform_links(links, plan, report))
    if report:
        result.meta[TRANSFORMS_META] = report
    result.meta[DURATION_META] = round((time.monotonic() - started) * 1000, 3)
    return result


#: Columns report progress only once their encoding has run this long (seconds): a quick
#: result (most of them, and every warm one) makes no progress display appear.
REPORT_AFTER_SECONDS = 0.5


def _reporting(transform: ColumnTransform, progress: StepReport) -> ColumnTransform:
    """``transform`` reporting each column as it starts (seconds each on a cold result),
    once ``REPORT_AFTER_SECONDS`` have passed."""
    began = time.monotonic()
    started = 0

    def each(column: str, values: list[Any]) -> list[Any]:
        nonlocal started
        started += 1
        if time.monotonic() - began >= REPORT_AFTER_SECONDS:
            progress(started, None, f"privacy transforms: column {started} ({column}, "
                                    f"{len(values):,} distinct values)")
        return transform(column, values)

    return each


def _transform_tool_result(
    raw: ToolResult, plan: CallPlan, report: dict[str, Any]
) -> ToolResult:
    """Transform every text-bearing part of a handler-built result: structured content,
    each block's text, link fields, embedded text, URIs and meta, and the result meta.
    Binary payloads (image/audio data, blobs) stay as they are."""
    tr = plan.reporting(report)
    if tr is None:
        return ToolResult(list(raw.content), raw.structured, raw.is_error, dict(raw.meta))
    structured = tr(raw.structured) if raw.structured is not None else None
    content = [b for b in (transform_block(b, tr) for b in raw.content) if b is not None]
    meta = transform_meta(dict(raw.meta), tr) if raw.meta else {}
    return ToolResult(content, structured, raw.is_error, dict(meta or {}))


def _transform_links(
    links: Iterable[ResourceLink], plan: CallPlan, report: dict[str, Any],
) -> list[ResourceLink]:
    """``ctx.link`` links through the output pipeline; a link whose URI the policy
    removed is dropped."""
    tr = plan.reporting(report)
    out = []
    for link in links:
        new = transform_link(link, tr) if tr is not None else link
        if new is not None:
            out.append(new)
    return out


def resource_contents(
    raw: Any, uri: str, mime: str | None, plan: CallPlan
) -> list[TextResourceContents | BlobResourceContents]:
    """A resource handler's return value as contents: bytes as a blob, contents as they
    are (text through the pipeline), a str as text, anything else as compact JSON."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return [BlobResourceContents(uri, base64.b64encode(bytes(raw)).decode(), mime)]
    if isinstance(raw, list) and raw and all(
        isinstance(c, (TextResourceContents, BlobResourceContents)) for c in raw
    ):
        tr = plan.reporting(None)  # report discarded
        if tr is None:
            return list(raw)
        return [transform_resource_contents(item, tr) for item in raw]
    if isinstance(raw, str):
        text, report = plan.transform(raw)
        mime_out = mime
    else:
        value, report = plan.transform(to_jsonable(raw))
        # Compact: resources are read by programs (tables can be large); tool text is
        # indented for models.
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        mime_out = mime or "application/json"
    meta = {TRANSFORMS_META: report} if report else None
    return [TextResourceContents(uri, text, mime_out, meta)]


def prompt_result(raw: Any, exposed_name: str, plan: CallPlan) -> PromptResult:
    """A prompt handler's return value (str, message, list of messages or ``PromptResult``)
    as a ``PromptResult`` through the output pipeline; anything else is an error."""
    if isinstance(raw, PromptResult):
        result = raw
    elif isinstance(raw, str):
        result = PromptResult([PromptMessage("user", TextContent(raw))])
    elif isinstance(raw, PromptMessage):
        result = PromptResult([raw])
    elif isinstance(raw, list) and all(isinstance(m, PromptMessage) for m in raw):
        result = PromptResult(list(raw))
    else:
        raise MCPLayerError(
            f"Prompt {exposed_name} returned an unsupported value; a "
            "prompt handler returns a str, a list of PromptMessage or a PromptResult.",
            data={"type": type(raw).__name__},
        )
    tr = plan.reporting(None)  # prompt reports are discarded
    if tr is None:
        return result
    messages = []
    for msg in result.messages:
        block = transform_block(msg.content, tr)
        messages.append(PromptMessage(msg.role, block or TextContent(WITHHELD)))
    description = result.description
    if description:
        description = tr(description)
        description = description if isinstance(description, str) else None
    return PromptResult(messages, description, transform_meta(result.meta, tr))
