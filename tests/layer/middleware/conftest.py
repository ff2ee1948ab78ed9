"""Shared helpers for middleware tests: a layer factory and policies that count or refuse."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cloudg_nb.layer.layer import CloudGMCPLayer
from cloudg_nb.layer.registry import Registry
from cloudg_nb.policy import Policy


class CountingPolicy(Policy):
    """An open policy that counts ``check_call`` and can start refusing on demand."""

    def __init__(self, document: dict[str, Any] | None = None) -> None:
        super().__init__(document or {"name": "counting"})
        self.checks = 0
        self.refuse: Exception | None = None

    def check_call(self, spec: Any, principal: Any, arguments: dict[str, Any]) -> None:
        self.checks += 1
        if self.refuse is not None:
            raise self.refuse
        super().check_call(spec, principal, arguments)


@pytest.fixture
def make_layer() -> Callable[..., CloudGMCPLayer]:
    """``make_layer(registry, *middleware, policy="open")`` builds a layer for one test."""

    def build(registry: Registry, *middleware: Any, policy: Any = "open") -> CloudGMCPLayer:
        return CloudGMCPLayer(registry=registry, policy=policy, middleware=list(middleware))

    return build


@pytest.fixture
def counting_policy() -> CountingPolicy:
    """An open policy counting ``check_call``; set ``.refuse`` to an error to refuse calls."""
    return CountingPolicy()
