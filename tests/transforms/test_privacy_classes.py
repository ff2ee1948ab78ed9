"""Acceptance (issue 36, finding 9), in process: every attack of ``privacy_classes_corpus``
— secrets inside encoded values, in vendor key formats, holding punctuation — is unreadable
under the default ``standard`` policy (no 12-character piece in clear or in anything a reader
could decode from the output), and readable under ``open`` (so the check can fail)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer, Registry

from .leak_oracle import leaks, visible
from .privacy_classes_corpus import PLANTS, record


def _layer(policy: str) -> CloudGMCPLayer:
    reg = Registry()

    @reg.tool
    def planted(ctx, label: str) -> dict:
        """One planted record."""
        return record(PLANTS[label])

    return CloudGMCPLayer(registry=reg, policy=policy)


async def _seen(policy: str, label: str) -> list[str]:
    result = await _layer(policy).call_tool("planted", {"label": label})
    assert not result.is_error, result.text
    wire: Any = result.to_wire()
    return [json.dumps(wire), result.text]


def _secrets(label: str) -> dict[str, str]:
    return {f"{label}#{n}": s for n, s in enumerate(PLANTS[label].secrets)}


def test_corpus_covers_the_three_classes_with_many_shapes() -> None:
    by_class: dict[str, int] = {}
    for plant in PLANTS.values():
        by_class[plant.klass] = by_class.get(plant.klass, 0) + 1
    assert by_class["encoded"] >= 18 and by_class["vendor"] >= 30
    assert by_class["punctuation"] >= 12
    assert {p.carrier[0] for p in PLANTS.values()} == {"tag", "tag_key", "meta", "finding",
                                                       "name"}


@pytest.mark.parametrize("label", sorted(PLANTS))
async def test_planted_secret_is_unreadable_under_standard(label: str) -> None:
    assert leaks(await _seen("standard", label), _secrets(label)) == []


@pytest.mark.parametrize("label", sorted(PLANTS))
async def test_planted_secret_is_readable_under_open(label: str) -> None:
    assert visible(await _seen("open", label), _secrets(label)) == sorted(_secrets(label))
