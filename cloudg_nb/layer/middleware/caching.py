"""CachingMiddleware: reuse results of read-only, idempotent tool calls for a while.

The key is (principal id, sorted roles, kind, name, canonical arguments). A hit is still
admitted by the request's plan (access, rate-limit token, audit) and returns a deep copy marked
``cloudg/cache: "hit"``. Errors are never stored, completions never cached. A call to a
tool that is not read-only clears the cache, and so does every workspace change once the
middleware is attached to a layer (but for events about the resources named in ``keep_on``,
such as the activity feed, which say nothing about the data).
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..calls import CallInfo, Handler
from ..content import BlobResourceContents, TextResourceContents, ToolResult
from ..enums import ChangeKind
from ..specs import ToolSpec
from ..wire import CACHE_META

if TYPE_CHECKING:
    from ..layer import CloudGMCPLayer

__all__ = ["CachingMiddleware"]


class CachingMiddleware:
    def __init__(
        self,
        ttl: float = 60.0,
        maxsize: int = 256,
        predicate: Callable[[Any], bool] | None = None,
        cache_resources: bool = False,
        keep_on: Iterable[str] = (),
    ) -> None:
        self.ttl = ttl
        self.keep_on = frozenset(keep_on)
        self.maxsize = maxsize
        self.predicate = predicate
        self.cache_resources = cache_resources
        self._entries: OrderedDict[tuple, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self, *_: Any) -> None:
        with self._lock:
            self._entries.clear()

    def _on_change(self, kind: ChangeKind, uri: str | None = None) -> None:
        if kind == ChangeKind.RESOURCE and uri in self.keep_on:
            return
        self.clear()

    def attach(self, layer: CloudGMCPLayer) -> None:
        layer.on_change(self._on_change)

    def _cacheable(self, info: CallInfo) -> bool:
        if isinstance(info.spec, ToolSpec):
            if self.predicate is not None:
                return bool(self.predicate(info))
            return info.spec.read_only and info.spec.idempotent
        if info.kind == "resource":
            return self.cache_resources
        return False

    @staticmethod
    def _key(info: CallInfo) -> tuple | None:
        try:
            args = json.dumps(info.arguments, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):
            return None
        p = info.principal
        return (p.id, tuple(sorted(p.roles)), info.kind, info.name, args)

    async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
        if isinstance(info.spec, ToolSpec) and not info.spec.read_only:
            try:
                return await call_next(info)
            finally:
                self.clear()
        if not self._cacheable(info):
            return await call_next(info)
        key = self._key(info)
        if key is None:
            return await call_next(info)
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] <= now:
                del self._entries[key]
                entry = None
            if entry is not None:
                self._entries.move_to_end(key)
        if entry is not None:
            plan = info.plan
            if plan is None:  # the layer sets it on every request; a hand-made info has none
                layer = info.context.layer
                assert layer is not None, "the layer sets itself on every request's context"
                plan = info.plan = layer.plan(info.spec, info.principal)
            plan.admit(info.kind, info.arguments)
            self.hits += 1
            return self._mark_hit(copy.deepcopy(entry[1]))
        self.misses += 1
        result = await call_next(info)
        if not (isinstance(result, ToolResult) and result.is_error):
            with self._lock:
                self._entries[key] = (now + self.ttl, copy.deepcopy(result))
                self._entries.move_to_end(key)
                while len(self._entries) > self.maxsize:
                    self._entries.popitem(last=False)
        return result

    @staticmethod
    def _mark_hit(result: Any) -> Any:
        if isinstance(result, ToolResult):
            result.meta[CACHE_META] = "hit"
        elif isinstance(result, list):
            for item in result:
                if isinstance(item, (TextResourceContents, BlobResourceContents)):
                    item.meta = {**(item.meta or {}), CACHE_META: "hit"}
        return result
