"""Acceptance: every prompt injection of ``injection_corpus`` is fenced wherever it sits in an
estate loaded with ``load_dataset`` (asset name, description, tag value; finding title,
description, remediation) when a catalog tool returns it under ``standard``, and none of the
ordinary descriptions and tags is — also when read one by one by the sanitizer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.transforms.sanitize import FENCE_CLOSE, FENCE_OPEN, Sanitizer
from tests.catalog.support import make_layer

from .injection_corpus import INJECTIONS, ORDINARY, ORDINARY_TAGS, SPLIT_TAGS, ZW

LABELS = sorted(INJECTIONS)
_FENCED_SPAN = re.compile(re.escape(FENCE_OPEN) + ".*?" + re.escape(FENCE_CLOSE), re.DOTALL)
_ACCOUNT = "111122223333"


def _asset(asset_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": asset_id, "name": asset_id, "asset_type": "EC2", "provider": "AWS",
            "region": "us-east-1", "account_id": _ACCOUNT, "tags": {"env": "prod"},
            "metadata": {}, **fields}


def _finding(finding_id: str, resource_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": finding_id, "resource_id": resource_id, "severity": "HIGH",
            "title": f"Finding {finding_id}", "description": "A configuration issue.",
            "remediation": "Fix it.", "source_tool": "corpus", **fields}


def _write(folder: Path, texts: dict[str, str], tags: dict[str, str] | None = None) -> None:
    """One asset per text and place (name, description, tag ``note``) and one finding per
    text and field (title, description, remediation); ``tags`` on one more asset."""
    assets: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    for label, text in texts.items():
        assets += [_asset(f"name-{label}", name=text),
                   _asset(f"desc-{label}", metadata={"description": text}),
                   _asset(f"tag-{label}", tags={"env": "prod", "note": text})]
        findings += [_finding(f"{field}-{label}", f"name-{label}", **{field: text})
                     for field in ("title", "description", "remediation")]
    if tags:
        assets.append(_asset("tagged", tags={"env": "prod", **tags}))
    (folder / "findings.json").write_text(json.dumps({"assets": assets, "findings": findings}))


async def _loaded(tmp_path: Path, texts: dict[str, str], tags: dict[str, str] | None = None,
                  policy: str = "standard") -> CloudGMCPLayer:
    layer = make_layer(tmp_path, policy=policy)
    _write(tmp_path / "data", texts, tags)
    loaded = await layer.call_tool("load_dataset", {"path": "findings.json"})
    assert not loaded.is_error, loaded.text
    return layer


async def _call(layer: CloudGMCPLayer, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await layer.call_tool(tool, arguments)
    assert not result.is_error, result.text
    return result.structured


async def _items(layer: CloudGMCPLayer, tool: str, **arguments: Any) -> list[dict[str, Any]]:
    """Every item of a paged list tool, page by page."""
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await _call(layer, tool, limit=500, **arguments,
                           **({"cursor": cursor} if cursor else {}))
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items


def _only_fenced(value: str, payload: str) -> bool:
    """Whether ``payload`` reaches the caller, and only inside an untrusted fence."""
    return payload in value and payload not in _FENCED_SPAN.sub("", value)


def _unfenced(values: dict[str, str]) -> list[str]:
    """Labels whose returned value carries its injection's payload outside a fence."""
    return [label for label, value in values.items()
            if not _only_fenced(value, INJECTIONS[label][1])]


def _injections() -> dict[str, str]:
    return {label: text for label, (text, _payload) in INJECTIONS.items()}


def test_corpus_holds_at_least_24_injections_and_35_ordinary_texts() -> None:
    assert len(INJECTIONS) >= 24
    assert len(ORDINARY) + len(ORDINARY_TAGS) >= 35
    assert any(ZW in text for text, _ in INJECTIONS.values())
    assert any("\n" in text for text, _ in INJECTIONS.values())


@pytest.mark.parametrize("label", LABELS)
def test_injection_reads_as_one_on_its_own(label: str) -> None:
    assert Sanitizer().has_injection(INJECTIONS[label][0])


@pytest.mark.parametrize("label", sorted(ORDINARY))
def test_ordinary_text_does_not_read_as_an_injection(label: str) -> None:
    assert not Sanitizer().has_injection(ORDINARY[label])


def test_ordinary_texts_and_tags_searched_together_hold_no_injection() -> None:
    strings = [*ORDINARY.values(), *ORDINARY_TAGS, *ORDINARY_TAGS.values()]
    assert Sanitizer().injected(strings) == []


def test_injections_searched_among_ordinary_texts_are_all_found() -> None:
    texts = [text for text, _ in INJECTIONS.values()]
    strings = [*ORDINARY.values(), *texts, *ORDINARY_TAGS.values()]
    found = Sanitizer().injected(strings)
    assert [strings[i] for i in found] == texts


async def test_injection_in_an_asset_name_is_fenced_by_find_assets_and_get_asset(
        tmp_path: Path) -> None:
    layer = await _loaded(tmp_path, _injections())
    names = {item["id"][len("name-"):]: item["name"]
             for item in await _items(layer, "find_assets") if item["id"].startswith("name-")}
    got = {label: (await _call(layer, "get_asset", ref=f"name-{label}"))["name"]
           for label in LABELS}
    assert sorted(names) == LABELS
    assert _unfenced(names) == [] and _unfenced(got) == []


async def test_injection_in_an_asset_description_is_fenced_by_get_asset(tmp_path: Path) -> None:
    layer = await _loaded(tmp_path, _injections())
    got = {label: (await _call(layer, "get_asset", ref=f"desc-{label}"))["metadata"][
        "description"] for label in LABELS}
    assert _unfenced(got) == []


async def test_injection_in_a_tag_value_is_fenced_by_get_asset_and_list_tags(
        tmp_path: Path) -> None:
    layer = await _loaded(tmp_path, _injections())
    got = {label: (await _call(layer, "get_asset", ref=f"tag-{label}"))["tags"]["note"]
           for label in LABELS}
    values = [item["value"] for item in await _items(layer, "list_tags", key="note")]
    assert _unfenced(got) == []
    assert len(values) == len(LABELS)
    assert [v for v in values if FENCE_OPEN not in v] == []


async def test_injection_in_a_finding_title_is_fenced_by_list_findings_and_get_finding(
        tmp_path: Path) -> None:
    layer = await _loaded(tmp_path, _injections())
    titles = {item["id"][len("title-"):]: item["title"]
              for item in await _items(layer, "list_findings") if item["id"].startswith("title-")}
    got = {label: (await _call(layer, "get_finding", finding_id=f"title-{label}"))["title"]
           for label in LABELS}
    assert sorted(titles) == LABELS
    assert _unfenced(titles) == [] and _unfenced(got) == []


@pytest.mark.parametrize("field", ["description", "remediation"])
async def test_injection_in_a_finding_text_is_fenced_by_get_finding(tmp_path: Path,
                                                                    field: str) -> None:
    layer = await _loaded(tmp_path, _injections())
    got = {label: (await _call(layer, "get_finding", finding_id=f"{field}-{label}"))[field]
           for label in LABELS}
    assert _unfenced(got) == []


async def test_injection_split_across_a_tag_key_and_its_value_is_fenced(tmp_path: Path) -> None:
    layer = await _loaded(tmp_path, {}, dict(SPLIT_TAGS))
    tags = (await _call(layer, "get_asset", ref="tagged"))["tags"]
    assert {key: tags[key].startswith(FENCE_OPEN) for key, _ in SPLIT_TAGS} == {
        key: True for key, _ in SPLIT_TAGS}
    assert tags["env"] == "prod"


async def test_ordinary_descriptions_and_tags_come_through_standard_unfenced(
        tmp_path: Path) -> None:
    layer = await _loaded(tmp_path, ORDINARY, ORDINARY_TAGS)
    results: list[Any] = [await _items(layer, "find_assets"),
                          await _items(layer, "list_findings"),
                          await _items(layer, "list_tags"),
                          await _call(layer, "get_asset", ref="tagged")]
    for label in ORDINARY:
        results += [await _call(layer, "get_asset", ref=f"{where}-{label}")
                    for where in ("name", "desc", "tag")]
        results += [await _call(layer, "get_finding", finding_id=f"{field}-{label}")
                    for field in ("title", "description", "remediation")]
    text = json.dumps(results, ensure_ascii=False)
    assert FENCE_OPEN.strip() not in text
    assert results[3]["tags"] == {"env": "prod", **ORDINARY_TAGS}
    assert {label: results[4 + 6 * n]["name"] for n, label in enumerate(ORDINARY)} == ORDINARY


async def test_open_policy_returns_injections_unfenced(tmp_path: Path) -> None:
    layer = await _loaded(tmp_path, _injections(), policy="open")
    got = {label: (await _call(layer, "get_asset", ref=f"name-{label}"))["name"]
           for label in LABELS}
    assert got == _injections()
