"""Shared fixtures: a fresh demo estate per test (cheap: 60 assets)."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import Dataset, demo


@pytest.fixture
def ds() -> Dataset:
    return demo()
