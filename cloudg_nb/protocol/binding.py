"""Bind a ``CloudGMCPLayer`` into the official SDK's low-level ``Server``, for both protocol eras.

Handlers call the layer's one door and list from its ``*_wire(principal)`` dicts; results pass
through unchanged (the SDK shapes them per version, and frames all JSON-RPC). In an existing
server the host's own primitives are kept, listed first, and win name collisions.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.lowlevel.server import HandlerEntry, Server
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..layer.bounds import check_uri
from ..layer.context import Principal
from ..layer.errors import MCPLayerError, NotFoundError
from ..layer.wire import ERROR_DATA_META
from .approval_rounds import ApprovalRounds
from .fanout import ChangeFanout
from .intake import leave_turn
from .principal import PrincipalResolver
from .request import (
    declares_url_elicitation,
    hide_server_paths,
    internal_error,
    is_modern,
    is_remote,
    layer_context,
    set_log_level,
    to_mcp_error,
)
from .sdk_internals import advertise_list_changes, connection_of

if TYPE_CHECKING:
    from ..layer.content import ToolResult
    from ..layer.layer import CloudGMCPLayer

__all__ = ["LayerBinding", "bind_layer"]

T = TypeVar("T")
#: The SDK request context every handler gets (lifespan and transport left open).
_Ctx = ServerRequestContext[Any, Any]
logger = logging.getLogger("cloudg.mcp.protocol")

_PRIVATE_LIST = {"ttlMs": 0, "cacheScope": "private"}


def _complete(payload: dict[str, Any], *, cacheable: bool = False) -> dict[str, Any]:
    """Add the 2026-07-28 result envelope (handshake-era serialisation drops these keys).

    Listings depend on the caller's principal and on workspace changes, so they are private
    and immediately stale.
    """
    out = {**payload, "resultType": "complete"}
    if cacheable:
        out.update(_PRIVATE_LIST)
    return out


def _as_dict(result: HandlerResult) -> dict[str, Any]:
    """A host handler's result (a model, or a dict that may hold models) as wire JSON."""
    if result is None:
        return {}
    return dict(to_jsonable_python(result, by_alias=True, exclude_none=True))


def _error_without_server_paths(wire: dict[str, Any]) -> dict[str, Any]:
    """An error result's texts and error data with server paths hidden (``hide_server_paths``)."""
    out = dict(wire)
    out["content"] = [
        {**block, "text": hide_server_paths(block["text"])}
        if block.get("type") == "text" and isinstance(block.get("text"), str) else block
        for block in wire.get("content") or []
    ]
    meta = wire.get("_meta")
    if isinstance(meta, dict) and ERROR_DATA_META in meta:
        out["_meta"] = {**meta, ERROR_DATA_META: hide_server_paths(meta[ERROR_DATA_META])}
    return out


@dataclass
class LayerBinding:
    """A layer bound into an SDK server: the server, its change fan-out, principal resolver
    and the calls parked between the rounds of the 2026-07-28 request-retry pattern."""

    server: Server[Any]
    layer: CloudGMCPLayer
    fanout: ChangeFanout
    resolver: PrincipalResolver
    rounds: ApprovalRounds = field(default_factory=ApprovalRounds)

    def principal(self, sdk_ctx: Any) -> Principal:
        return self.resolver(sdk_ctx)


class _Handlers:
    """The SDK request handlers for one binding (host handlers, if any, captured first)."""

    def __init__(self, binding: LayerBinding, host: dict[str, HandlerEntry[Any]]) -> None:
        self.b = binding
        self.layer = binding.layer
        self.host = host
        self._warned: set[tuple[str, str]] = set()

    # -- host helpers --------------------------------------------------------------------

    async def _host_items(self, method: str, ctx: _Ctx, params: Any, key: str) -> list[dict]:
        entry = self.host.get(method)
        if entry is None:
            return []
        if params is None:
            params = entry.params_type.model_validate({})
        return list(_as_dict(await entry.handler(ctx, params)).get(key) or [])

    def _merge(self, kind: str, host_items: list[dict], layer_items: list[dict],
               id_field: str) -> list[dict]:
        taken = {item.get(id_field) for item in host_items}
        merged = list(host_items)
        for item in layer_items:
            ident = item.get(id_field)
            if ident in taken:
                if (kind, str(ident)) not in self._warned:
                    self._warned.add((kind, str(ident)))
                    logger.warning("host server's %s %r hides the layer's one of that name",
                                   kind, ident)
                continue
            merged.append(item)
        return merged

    async def _host_names(self, method: str, ctx: _Ctx, key: str, id_field: str) -> set[str]:
        if method not in self.host:
            return set()
        items = await self._host_items(method, ctx, None, key)
        return {str(item[id_field]) for item in items if item.get(id_field) is not None}

    # -- listings ------------------------------------------------------------------------

    async def list_tools(self, ctx: _Ctx, params: types.PaginatedRequestParams) -> dict:
        host = await self._host_items("tools/list", ctx, params, "tools")
        items = self._merge("tool", host, self.layer.tools_wire(self.b.principal(ctx)), "name")
        return _complete({"tools": items}, cacheable=True)

    async def list_resources(self, ctx: _Ctx, params: types.PaginatedRequestParams) -> dict:
        host = await self._host_items("resources/list", ctx, params, "resources")
        items = self._merge("resource", host,
                            self.layer.resources_wire(self.b.principal(ctx)), "uri")
        return _complete({"resources": items}, cacheable=True)

    async def list_templates(self, ctx: _Ctx, params: types.PaginatedRequestParams) -> dict:
        host = await self._host_items("resources/templates/list", ctx, params,
                                      "resourceTemplates")
        items = self._merge("resource template", host,
                            self.layer.templates_wire(self.b.principal(ctx)), "uriTemplate")
        return _complete({"resourceTemplates": items}, cacheable=True)

    async def list_prompts(self, ctx: _Ctx, params: types.PaginatedRequestParams) -> dict:
        host = await self._host_items("prompts/list", ctx, params, "prompts")
        items = self._merge("prompt", host, self.layer.prompts_wire(self.b.principal(ctx)),
                            "name")
        return _complete({"prompts": items}, cacheable=True)

    # -- calls ---------------------------------------------------------------------------

    async def _through_layer(self, method: str, ctx: _Ctx, call: Awaitable[T]) -> T:
        """Await a layer call, mapping layer errors to JSON-RPC errors with the layer's codes
        and anything unexpected to an internal error (details in the server log only)."""
        try:
            return await call
        except MCPLayerError as exc:
            raise to_mcp_error(exc, ctx) from None
        except Exception:
            logger.exception("%s failed", method)
            raise internal_error(method) from None

    async def call_tool(self, ctx: _Ctx, params: types.CallToolRequestParams) -> Any:
        if params.name in await self._host_names("tools/list", ctx, "tools", "name"):
            return await self.host["tools/call"].handler(ctx, params)
        principal = self.b.principal(ctx)
        if is_modern(ctx) and (params.request_state is not None
                               or declares_url_elicitation(ctx)):
            outcome = await self._through_layer("tools/call", ctx,
                                                self._call_in_rounds(ctx, params, principal))
            if isinstance(outcome, dict):
                return outcome  # input_required: the approval page, offered
            result = outcome
        else:
            result = await self._through_layer("tools/call", ctx, self.layer.call_tool(
                params.name, params.arguments or {}, principal=principal,
                context=layer_context(self.layer, ctx, principal),
            ))
        wire = result.to_wire()
        if result.is_error and is_remote(ctx):
            wire = _error_without_server_paths(wire)
        return _complete(wire)

    async def _call_in_rounds(self, ctx: _Ctx, params: types.CallToolRequestParams,
                              principal: Principal) -> ToolResult | dict[str, Any]:
        """A 2026-07-28 tools/call whose approval page may be offered by the request-retry
        pattern (``approval_rounds``): a retry takes its parked call over."""
        arguments = params.arguments or {}
        if params.request_state is not None:
            return await self.b.rounds.resume(ctx, principal, params.name, arguments,
                                              params.request_state, params.input_responses)
        return await self.b.rounds.start(
            ctx, layer_context(self.layer, ctx, principal), params.name, arguments,
            lambda context: self.layer.call_tool(params.name, arguments, principal=principal,
                                                 context=context))

    async def read_resource(self, ctx: _Ctx, params: types.ReadResourceRequestParams) -> Any:
        host_entry = self.host.get("resources/read")
        if host_entry is not None and params.uri in await self._host_names(
            "resources/list", ctx, "resources", "uri"
        ):
            return await host_entry.handler(ctx, params)
        principal = self.b.principal(ctx)
        try:
            contents = await self.layer.read_resource(
                params.uri, principal=principal,
                context=layer_context(self.layer, ctx, principal),
            )
        except MCPLayerError as exc:
            if isinstance(exc, NotFoundError) and host_entry is not None:
                return await host_entry.handler(ctx, params)  # maybe one of the host's templates
            raise to_mcp_error(exc, ctx, resource=True) from None
        except Exception:
            logger.exception("resources/read failed")
            raise internal_error("resources/read") from None
        return _complete({"contents": [c.to_wire() for c in contents]}, cacheable=True)

    async def get_prompt(self, ctx: _Ctx, params: types.GetPromptRequestParams) -> Any:
        if params.name in await self._host_names("prompts/list", ctx, "prompts", "name"):
            return await self.host["prompts/get"].handler(ctx, params)
        principal = self.b.principal(ctx)
        result = await self._through_layer("prompts/get", ctx, self.layer.get_prompt(
            params.name, dict(params.arguments or {}), principal=principal,
            context=layer_context(self.layer, ctx, principal),
        ))
        return _complete(result.to_wire())

    async def complete(self, ctx: _Ctx, params: types.CompleteRequestParams) -> Any:
        ref = params.ref.model_dump(by_alias=True, exclude_none=True)
        host_entry = self.host.get("completion/complete")
        if host_entry is not None and self._host_owns_ref(ref):
            return await host_entry.handler(ctx, params)
        context_args = dict(params.context.arguments or {}) if params.context else {}
        completion = await self._through_layer("completion/complete", ctx, self.layer.complete(
            ref, {"name": params.argument.name, "value": params.argument.value},
            principal=self.b.principal(ctx), context_arguments=context_args,
        ))
        return _complete({"completion": completion})

    def _host_owns_ref(self, ref: dict[str, Any]) -> bool:
        """A completion ref the layer does not know goes to the host server."""
        registry = self.layer.registry
        if ref.get("type") == "ref/prompt":
            return self.layer.internal_name(str(ref.get("name", ""))) not in registry.prompts
        return ref.get("uri") not in registry.templates

    # -- session state -------------------------------------------------------------------

    async def set_level(self, ctx: _Ctx, params: types.SetLevelRequestParams) -> dict:
        entry = self.host.get("logging/setLevel")
        if entry is not None:
            await entry.handler(ctx, params)
        set_log_level(ctx, params.level)
        return {}

    def _visible_uri(self, ctx: _Ctx, uri: str) -> bool:
        principal = self.b.principal(ctx)
        if uri in {spec.uri for spec in self.layer.list_resources(principal)}:
            return True
        found = self.layer.registry.find_template(uri)
        return found is not None and found[0] in self.layer.list_templates(principal)

    async def subscribe(self, ctx: _Ctx, params: types.SubscribeRequestParams) -> dict:
        try:
            check_uri(params.uri, self.layer.input_bounds)  # before a template is matched
        except MCPLayerError as exc:
            raise to_mcp_error(exc, ctx, resource=True) from None
        entry = self.host.get("resources/subscribe")
        if entry is not None:
            await entry.handler(ctx, params)
        elif not self._visible_uri(ctx, params.uri):
            raise to_mcp_error(self._unknown_resource(params.uri), ctx, resource=True)
        connection = connection_of(ctx)
        if connection is not None:
            self.b.fanout.subscribe(connection, params.uri)
        return {}

    async def unsubscribe(self, ctx: _Ctx, params: types.UnsubscribeRequestParams) -> dict:
        entry = self.host.get("resources/unsubscribe")
        if entry is not None:
            await entry.handler(ctx, params)
        connection = connection_of(ctx)
        if connection is not None:
            self.b.fanout.unsubscribe(connection, params.uri)
        return {}

    @staticmethod
    def _unknown_resource(uri: str) -> MCPLayerError:
        return NotFoundError(
            "Unknown resource. List resources and resource templates (resources/list, "
            "resources/templates/list) for URIs that can be subscribed to.",
            data={"kind": "resource", "uri": uri},
        )


def _track_sessions(fanout: ChangeFanout) -> ServerMiddleware[Any]:
    """Server middleware: every handshake-era connection that talks to us gets change events;
    the request leaves its turn on the loop as its handler starts (``intake``)."""

    async def middleware(ctx: _Ctx, call_next: CallNext) -> HandlerResult:
        if not is_modern(ctx):
            connection = connection_of(ctx)
            if connection is not None:
                fanout.track(connection)
        leave_turn()  # read and routed: the caller's next request may be read
        return await call_next(ctx)

    return middleware


_METHODS: tuple[tuple[str, type[BaseModel], str], ...] = (
    ("tools/list", types.PaginatedRequestParams, "list_tools"),
    ("tools/call", types.CallToolRequestParams, "call_tool"),
    ("resources/list", types.PaginatedRequestParams, "list_resources"),
    ("resources/templates/list", types.PaginatedRequestParams, "list_templates"),
    ("resources/read", types.ReadResourceRequestParams, "read_resource"),
    ("resources/subscribe", types.SubscribeRequestParams, "subscribe"),
    ("resources/unsubscribe", types.UnsubscribeRequestParams, "unsubscribe"),
    ("prompts/list", types.PaginatedRequestParams, "list_prompts"),
    ("prompts/get", types.GetPromptRequestParams, "get_prompt"),
    ("completion/complete", types.CompleteRequestParams, "complete"),
    ("logging/setLevel", types.SetLevelRequestParams, "set_level"),
)


def bind_layer(
    layer: CloudGMCPLayer,
    server: Server[Any] | None = None,
    *,
    resolver: PrincipalResolver | None = None,
    fanout: ChangeFanout | None = None,
) -> LayerBinding:
    """Serve ``layer`` through an SDK low-level ``Server`` (a new one, or ``server``).

    Registers tools/list|call, resources/list|templates/list|read|subscribe|unsubscribe,
    prompts/list|get, completion/complete, logging/setLevel and subscriptions/listen.
    ``resolver`` decides each request's principal (default: tokens, else local off-HTTP,
    else anonymous); ``fanout`` turns the layer's change events into notifications.
    """
    if server is None:
        server = Server(layer.name, version=str(layer.version or ""),
                        instructions=layer.instructions)
    host = {m: e for m, *_ in _METHODS if (e := server.get_request_handler(m)) is not None}
    binding = LayerBinding(
        server=server,
        layer=layer,
        fanout=fanout or ChangeFanout(layer),
        resolver=resolver or PrincipalResolver(),
    )
    handlers = _Handlers(binding, host)
    for method, params_type, attr in _METHODS:
        server.add_request_handler(method, params_type, getattr(handlers, attr))
    server.add_request_handler(
        "subscriptions/listen", types.SubscriptionsListenRequestParams,
        binding.fanout.listen_handler,
    )
    server.middleware.append(_track_sessions(binding.fanout))
    if "tools/list" not in host and server.get_tool_input_schema is None:
        server.get_tool_input_schema = _input_schema_lookup(layer)
    advertise_list_changes(server)
    return binding


def _input_schema_lookup(layer: CloudGMCPLayer) -> Callable[[str], dict[str, Any] | None]:
    """The SDK's tool-schema lookup for 2026-era ``Mcp-Param-*`` header checks: straight from
    the registry, so a tools/call does not build (and transform) the whole tools/list first.
    Unknown names give None; the call itself answers them."""

    def lookup(name: str) -> dict[str, Any] | None:
        spec = layer.registry.tools.get(layer.internal_name(name))
        return spec.input_schema if spec is not None else None

    return lookup
