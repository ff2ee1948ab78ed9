"""Fixtures: a layer over the default catalog (policy ``open``) with the demo estate loaded
through ``sample_estate``, and the same with an empty workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.estate import Dataset, demo

from .support import make_layer, ok


@pytest.fixture
def empty(tmp_path: Path) -> CloudGMCPLayer:
    return make_layer(tmp_path)


@pytest.fixture
async def layer(empty: CloudGMCPLayer) -> CloudGMCPLayer:
    await ok(empty, "sample_estate", {"name": "demo"})
    return empty


@pytest.fixture
def demo_ds() -> Dataset:
    """A fresh demo estate (not in any workspace), e.g. to write as files."""
    return demo()
