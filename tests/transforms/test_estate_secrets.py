"""Acceptance: secrets planted in a realistic estate file (``estate_secrets_corpus``) and
loaded with ``load_dataset`` never reach a caller under ``standard`` — through every tool,
resource, template, prompt and completion, neither whole nor any 12-character piece — and
all of them are visible under ``open`` (so the check can fail)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from cloudg_nb import CloudGMCPLayer
from tests.catalog.support import make_layer

from .estate_secrets_corpus import PLANTED, write_estate
from .estate_surfaces import collect_surfaces

_WINDOW = 12


@pytest.fixture(autouse=True)
def _quiet(caplog):
    caplog.set_level(logging.CRITICAL, logger="cloudg.mcp")


async def _surfaces(tmp_path: Path, policy: str) -> dict[str, list[str]]:
    """Every string every surface returned, by surface."""
    layer: CloudGMCPLayer = make_layer(tmp_path, policy=policy)
    write_estate(tmp_path / "data")
    loaded = await layer.call_tool("load_dataset", {"path": "findings.json", "name": "planted"})
    assert not loaded.is_error, loaded.text
    await layer.call_tool("sample_estate", {"name": "demo", "activate": False})
    asset_ids = [f"arn:aws:ec2:us-east-1:111122223333:instance/i-0planted{n:08d}"
                 for n in range(len(PLANTED))]
    finding_ids = [f"f-{n:03d}" for n in range(len(PLANTED))]
    return await collect_surfaces(
        layer, dataset="planted", base="demo", asset_ids=asset_ids, finding_ids=finding_ids,
        extra={"load_dataset": loaded.to_wire()},
    )


def _leaks(surfaces: dict[str, list[str]]) -> dict[str, list[str]]:
    """Planted label → surfaces showing the secret or a 12-character piece of it.

    Each surface's text is read once, a 12-character window at a time, against every piece
    of every secret (searching the text for each piece in turn took seconds per surface)."""
    labels_of: dict[str, set[str]] = {}
    for label, (_kind, secret, _carrier) in PLANTED.items():
        for i in range(len(secret) - _WINDOW + 1):
            labels_of.setdefault(secret[i:i + _WINDOW], set()).add(label)
    pieces = set(labels_of)
    found: dict[str, list[str]] = {}
    for surface, strings in surfaces.items():
        hay = "\x00".join(strings)
        shown = pieces.intersection(hay[i:i + _WINDOW] for i in range(len(hay) - _WINDOW + 1))
        labels = set().union(*(labels_of[piece] for piece in shown))
        for label in PLANTED:
            if label in labels:
                found.setdefault(label, []).append(surface)
    return found


def test_corpus_has_at_least_80_secrets_of_at_least_50_kinds() -> None:
    assert len(PLANTED) >= 80
    assert len({kind for kind, _s, _c in PLANTED.values()}) >= 50
    assert all(len(secret) >= _WINDOW for _k, secret, _c in PLANTED.values())


async def test_no_planted_estate_secret_reaches_any_surface_under_standard(
        tmp_path: Path) -> None:
    leaks = _leaks(await _surfaces(tmp_path, "standard"))
    assert {label: where[:3] for label, where in leaks.items()} == {}


async def test_every_planted_estate_secret_is_visible_under_open(tmp_path: Path) -> None:
    leaks = _leaks(await _surfaces(tmp_path, "open"))
    assert sorted(set(PLANTED) - set(leaks)) == []
