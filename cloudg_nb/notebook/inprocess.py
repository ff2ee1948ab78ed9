"""The local backend: an in-process ``CloudGMCPLayer`` (plain IPython, papermill, scripts, or
no Jupyter server found), with a sample estate loaded through the layer's own
``sample_estate`` tool. Same door as remote callers: policy, transforms, middleware, progress
(through the context's ``progress_callback``) and change events (``layer.on_change``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from ..assembly import build_layer
from ..layer import CloudGMCPLayer, MCPLayerError, NotFoundError
from ..layer.enums import ChangeKind
from .backends import ChangeFn, ProgressFn, parse_contents, templates_for_argument
from .call_result import CloudGError, ErrorInfo, Result, error_result, hints_from

__all__ = ["LocalBackend"]


def _error_info(exc: MCPLayerError) -> ErrorInfo:
    data = exc.data
    return ErrorInfo(code=exc.code, message=exc.message, hints=hints_from(data),
                     data=dict(data) if isinstance(data, dict) else
                     ({} if data is None else {"errors": data}))


class LocalBackend:
    """Calls an in-process layer; ``policy`` names a profile or a policy file."""

    mode = "local"

    def __init__(self, policy: str | None = None, sample: str | None = "demo", *,
                 layer: CloudGMCPLayer | None = None, reason: str = "") -> None:
        self.policy = policy
        self.sample = sample
        self.layer = layer
        self.reason = reason
        self.tools_changed: Callable[[], None] | None = None
        self.reconnected: Callable[[str], None] | None = None  # an in-process layer never drops
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._unlisten: Callable[[], None] | None = None

    @property
    def description(self) -> str:
        policy = self.layer.policy.name if self.layer is not None else self.policy
        what = f"in-process layer (policy {policy or 'standard'}"
        what += f", sample {self.sample})" if self.sample else ", empty workspace)"
        return f"local: {what}" + (f"; {self.reason}" if self.reason else "")

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.current_thread()
        if self.layer is None:
            self.layer = await asyncio.to_thread(build_layer, policy=self.policy)
        self._unlisten = self.layer.on_change(self._on_layer_change)
        if self.sample:
            result = await self.layer.call_tool(
                "sample_estate", {"name": self.sample, "dataset_name": self.sample})
            if result.is_error:
                text = " ".join(getattr(b, "text", "") for b in result.content)
                raise CloudGError(ErrorInfo("sample", f"could not load sample estate "
                                                      f"{self.sample!r}: {text}"))

    async def close(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    def _layer(self) -> CloudGMCPLayer:
        if self.layer is None:
            raise RuntimeError("the local backend was not started")
        return self.layer

    def _on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn`` on the client's loop thread (change listeners may fire elsewhere)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if threading.current_thread() is self._thread:
            fn(*args)
        else:
            loop.call_soon_threadsafe(fn, *args)

    def _on_layer_change(self, kind: ChangeKind, uri: str | None) -> None:
        if kind == ChangeKind.TOOLS and self.tools_changed is not None:
            self._on_loop(self.tools_changed)

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        progress: ProgressFn | None = None,
                        meta: dict[str, Any] | None = None) -> Result:
        layer = self._layer()
        context = None
        if progress is not None or meta:
            context = layer.context(progress_callback=progress,
                                    meta={"request": dict(meta or {})})
        try:
            result = await layer.call_tool(name, arguments, context=context)
        except NotFoundError as exc:
            return error_result(name, arguments, "not_found", exc.message, data=exc.data)
        except MCPLayerError as exc:
            info = _error_info(exc)
            return error_result(name, arguments, info.code, info.message, info.hints, exc.data)
        return Result.from_wire(name, arguments, result.to_wire())

    async def read_resource(self, uri: str) -> Any:
        try:
            contents = await self._layer().read_resource(uri)
        except MCPLayerError as exc:
            raise CloudGError(_error_info(exc)) from None
        return parse_contents(c.to_wire() for c in contents)

    async def get_prompt(self, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            result = await self._layer().get_prompt(name, arguments)
        except MCPLayerError as exc:
            raise CloudGError(_error_info(exc)) from None
        return [{"role": m.role, "text": getattr(m.content, "text", "")}
                for m in result.messages]

    async def complete(self, argument: str, value: str, *, tool: str | None = None,
                       prompt: str | None = None, uri_template: str | None = None,
                       context: dict[str, str] | None = None) -> list[str]:
        layer = self._layer()
        if prompt is not None:
            targets = [({"type": "ref/prompt", "name": prompt}, argument)]
        elif uri_template is not None:
            targets = [({"type": "ref/resource", "uri": uri_template}, argument)]
        else:
            templates = [t["uriTemplate"] for t in layer.templates_wire()]
            targets = [({"type": "ref/resource", "uri": template}, variable)
                       for template, variable in templates_for_argument(argument, templates)]
        for ref, name in targets:
            try:
                done = await layer.complete(ref, {"name": name, "value": value},
                                            context_arguments=dict(context or {}))
            except MCPLayerError as exc:
                raise CloudGError(_error_info(exc)) from None
            values = [str(v) for v in done.get("values", [])]
            if values:
                return values
        return []

    async def list_tools(self) -> list[dict[str, Any]]:
        return self._layer().tools_wire()

    async def subscribe(self, uri: str, fn: ChangeFn) -> Callable[[], Awaitable[None]]:
        def listener(kind: ChangeKind, changed: str | None) -> None:
            if kind == ChangeKind.RESOURCE and changed == uri:
                self._on_loop(fn, uri)

        remove = self._layer().on_change(listener)

        async def unsubscribe() -> None:
            remove()

        return unsubscribe

    def status(self) -> dict[str, Any]:
        policy = self.layer.policy.name if self.layer is not None else self.policy
        return {"mode": self.mode, "description": self.description, "policy": policy,
                "sample": self.sample}
