"""RetryMiddleware: retry read-only, idempotent tools whose handler failed or timed out.

Only results with error code ``handler_error`` or ``timeout`` are retried (never policy
refusals or bad arguments), with exponential backoff; ``cloudg/retries`` counts the retries.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from ..calls import CallInfo, Handler
from ..content import ToolResult
from ..specs import ToolSpec
from ..wire import ERROR_CODE_META, RETRIES_META

__all__ = ["RetryMiddleware"]


class RetryMiddleware:
    def __init__(
        self,
        retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        retry_on: Iterable[str | int] = ("handler_error", "timeout"),
    ) -> None:
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.retry_on = frozenset(retry_on)

    def _eligible(self, info: CallInfo) -> bool:
        spec = info.spec
        return isinstance(spec, ToolSpec) and spec.read_only and spec.idempotent

    async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
        if not self._eligible(info):
            return await call_next(info)
        attempt = 0
        links = list(info.context.links)  # links added by a failed attempt are dropped
        while True:
            info.context.links[:] = links
            result = await call_next(info)
            failed = (
                isinstance(result, ToolResult)
                and result.is_error
                and result.meta.get(ERROR_CODE_META) in self.retry_on
            )
            if not failed or attempt >= self.retries:
                if attempt and isinstance(result, ToolResult):
                    result.meta[RETRIES_META] = attempt
                return result
            await asyncio.sleep(min(self.max_backoff, self.backoff * (2**attempt)))
            attempt += 1
