"""Shared helpers for middleware tests: a layer factory over the core's fakes, and a policy
that counts its checks and refuses on demand (``tests.layer.fakes.FakePolicy``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cloudg_nb.layer.layer import CloudGMCPLayer
from cloudg_nb.layer.registry import Registry
from tests.layer.fakes import FakePolicy, core_layer


@pytest.fixture
def make_layer() -> Callable[..., CloudGMCPLayer]:
    """``make_layer(registry, *middleware, policy=None)`` builds a layer for one test (an
    open ``FakePolicy`` unless another is given)."""

    def build(registry: Registry, *middleware: Any, policy: Any = None) -> CloudGMCPLayer:
        return core_layer(registry, policy=policy, middleware=list(middleware))

    return build


@pytest.fixture
def counting_policy() -> FakePolicy:
    """An open policy recording its checks (``.checks``); set ``.refuse`` to an error to
    refuse calls."""
    return FakePolicy("counting")
