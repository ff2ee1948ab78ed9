"""Bad input through the real layer: unreadable files (malformed, truncated, wrong format)
are error results naming the file that leave the workspace exactly as it was; paths outside
the allowed roots (directly, via '..' or via a symlink) are refused with -31001; unknown
asset references, stale or malformed cursors and bad enum values are -32602 errors with
close matches — and no error message repeats what the caller sent."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from cloudg_nb.estate import Dataset, demo, write_inventory_map, write_tabular
from cloudg_nb.workspace import root_label

from .support import error_data, fail, ok


def _state(layer) -> list[tuple[str, int]]:
    ws = layer.workspace
    return [(n, ws.get(n).version) for n in ws.names()] + [("active", ws.active)]


def _truncated_inventory(folder: Path) -> str:
    write_inventory_map(demo(), folder)
    inv = folder / "inventory-map.json"
    inv.write_text(inv.read_text()[:4000])
    return "inventory-map.json"


def _malformed_findings(folder: Path) -> str:
    write_inventory_map(demo(), folder)
    (folder / "findings.json").write_text('{"findings": [1, 2,, 3]}')
    return "findings.json"


def _csv_without_columns(folder: Path) -> str:
    write_tabular(demo(), folder, "csv")
    (folder / "assets.csv").write_text("colour,size\nred,3\n")
    return "assets.csv"


def _broken_jsonl(folder: Path) -> str:
    write_tabular(demo(), folder, "jsonl")
    lines = (folder / "edges.jsonl").read_text().splitlines()
    (folder / "edges.jsonl").write_text("\n".join([*lines[:3], '{"id": "e-x", "source_'])
                                        + "\n")
    return "edges.jsonl"


def _binary(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    return "diagram.png"


def _truncated_prowler(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prowler-output.ocsf.json").write_text(
        '[{"finding_info": {"uid": "prowler-1", "title": "Open SSH"}, "severity": "High", '
        '"status_code": "FAIL", "resources": [{"uid": "arn:aws:ec2:us-east-1:1:sg/1"')
    return "prowler-output.ocsf.json"


def _empty(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "inventory-map.json").write_text("")
    return "inventory-map.json"


BAD_FILES: dict[str, Callable[[Path], str]] = {
    "truncated inventory map": _truncated_inventory,
    "malformed findings.json": _malformed_findings,
    "csv without the asset columns": _csv_without_columns,
    "truncated JSON lines": _broken_jsonl,
    "binary file": _binary,
    "truncated Prowler output": _truncated_prowler,
    "empty file": _empty,
}


def _target(folder: Path, file: str) -> Path:
    """What to pass as the path: the file itself, or its folder for folder formats."""
    return folder / file if file in ("diagram.png", "prowler-output.ocsf.json") else folder


@pytest.mark.parametrize("case", list(BAD_FILES))
async def test_unreadable_file_is_an_error_naming_it_and_changes_nothing(
        layer, tmp_path: Path, case: str) -> None:
    folder = tmp_path / "data" / "bad"
    file = BAD_FILES[case](folder)
    await ok(layer, "suppress_findings", {"ids": ["f-001"]})  # demo at version 2
    before = _state(layer)
    result = await fail(layer, "load_dataset", {"path": str(_target(folder, file))})
    assert result.error_code == -32602
    assert file in result.text and error_data(result)["file"] == file
    assert str(tmp_path) not in result.text
    assert _state(layer) == before


@pytest.mark.parametrize("case", ["truncated inventory map", "csv without the asset columns"])
async def test_failed_replace_keeps_the_old_dataset_and_its_version(
        layer, tmp_path: Path, case: str) -> None:
    folder = tmp_path / "data" / "bad"
    BAD_FILES[case](folder)
    before = _state(layer)
    result = await fail(layer, "load_dataset", {"path": "bad", "name": "demo",
                                                "replace": True})
    assert result.error_code == -32602
    assert _state(layer) == before
    assert (await ok(layer, "dataset_summary"))["assets"] == 60


async def test_wrong_kind_for_a_good_file_is_refused(layer, tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path / "data" / "acme")
    before = _state(layer)
    result = await fail(layer, "load_dataset", {"path": "acme", "kind": "tabular"})
    assert error_data(result)["file"] == "acme"
    assert _state(layer) == before


async def test_missing_file_is_named_by_its_base_name(layer) -> None:
    result = await fail(layer, "load_dataset", {"path": "nowhere/estate.json"})
    assert error_data(result) == {"file": "estate.json", "problem": "no such file or folder"}


# -- paths ------------------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside" / "estate"
    write_inventory_map(demo(), folder)
    return folder


async def test_absolute_path_outside_the_allowed_roots_is_denied(layer, outside: Path) -> None:
    before = _state(layer)
    result = await fail(layer, "load_dataset", {"path": str(outside)})
    assert result.error_code == -31001
    assert str(outside) not in result.text
    assert _state(layer) == before


async def test_dot_dot_escape_from_the_allowed_root_is_denied(layer, outside: Path) -> None:
    result = await fail(layer, "load_dataset", {"path": "../outside/estate"})
    assert result.error_code == -31001


async def test_symlink_inside_the_root_pointing_outside_is_denied(layer, tmp_path: Path,
                                                                  outside: Path) -> None:
    link = tmp_path / "data" / "looks-inside"
    os.symlink(outside, link)
    result = await fail(layer, "load_dataset", {"path": str(link)})
    assert result.error_code == -31001
    assert error_data(result)["roots"] == [root_label((tmp_path / "data").resolve()),
                                           root_label((tmp_path / "out").resolve())]


async def test_path_error_never_shows_the_servers_absolute_roots(layer, tmp_path: Path,
                                                                  outside: Path) -> None:
    result = await fail(layer, "load_dataset", {"path": str(outside / "estate")})
    shown = json.dumps(error_data(result)) + result.text
    assert str(tmp_path) not in shown
    assert error_data(result)["roots"] == ["<server>/data", "<server>/out"]


async def test_symlinked_file_inside_the_root_pointing_outside_is_denied(
        layer, tmp_path: Path, outside: Path) -> None:
    link = tmp_path / "data" / "inventory-map.json"
    os.symlink(outside / "inventory-map.json", link)
    result = await fail(layer, "load_dataset", {"path": "inventory-map.json"})
    assert result.error_code == -31001


# -- references, cursors, enums ---------------------------------------------------------------


@pytest.mark.parametrize(("tool", "arguments"), [
    ("get_asset", {"ref": "customer-db"}),
    ("blast_radius", {"ref": "customer-db"}),
    ("neighbors", {"ref": "customer-db"}),
    ("attack_paths", {"target": "customer-db"}),
    ("find_paths", {"source": "web-alb", "target": "customer-db"}),
])
async def test_unknown_asset_ref_is_32602_with_close_matches(layer, tool, arguments) -> None:
    result = await fail(layer, tool, arguments)
    assert result.error_code == -32602
    assert "customers-db" in error_data(result)["close_matches"]
    assert "customer-db" not in result.text


async def test_ambiguous_name_lists_the_candidates(layer, tmp_path: Path) -> None:
    twins = Dataset.from_records([
        {"id": "web-a", "name": "web", "asset_type": "EC2", "provider": "AWS"},
        {"id": "web-b", "name": "web", "asset_type": "EC2", "provider": "AWS"}])
    write_tabular(twins, tmp_path / "data" / "twins", "csv")
    await ok(layer, "load_dataset", {"path": "twins"})
    result = await fail(layer, "get_asset", {"ref": "web"})
    assert result.error_code == -32602
    assert error_data(result)["candidates"] == ["web-a", "web-b"]


async def test_cursor_for_other_filters_is_stale(layer) -> None:
    page = await ok(layer, "find_assets", {"provider": "AWS", "limit": 5})
    result = await fail(layer, "find_assets", {"provider": "GCP", "limit": 5,
                                               "cursor": page["next_cursor"]})
    assert result.error_code == -32602 and error_data(result)["reason"] == "stale"


async def test_cursor_survives_a_different_limit(layer) -> None:
    page = await ok(layer, "find_assets", {"limit": 5})
    out = await ok(layer, "find_assets", {"limit": 10, "cursor": page["next_cursor"]})
    assert out["offset"] == 5 and out["returned"] == 10


async def test_cursor_goes_stale_when_the_dataset_is_replaced(layer) -> None:
    page = await ok(layer, "blast_radius", {"ref": "prod-data-key", "limit": 2})
    await ok(layer, "sample_estate", {"name": "demo", "dataset_name": "demo", "replace": True})
    result = await fail(layer, "blast_radius", {"ref": "prod-data-key", "limit": 2,
                                                "cursor": page["next_cursor"]})
    assert error_data(result)["reason"] == "stale"


async def test_malformed_cursor_is_refused_without_echo(layer) -> None:
    result = await fail(layer, "list_findings", {"cursor": "page-two-please"})
    assert result.error_code == -32602 and error_data(result)["reason"] == "malformed"
    assert "page-two-please" not in result.text


async def test_limit_out_of_range_is_refused(layer) -> None:
    result = await fail(layer, "find_assets", {"limit": 501})
    assert result.error_code == -32602


@pytest.mark.parametrize(("tool", "arguments", "field", "best"), [
    ("find_assets", {"provider": "AWZ"}, "provider", "AWS"),
    ("find_assets", {"asset_types": ["S3-BUKET"]}, "asset_types", "S3_BUCKET"),
    ("find_assets", {"min_severity": "critcal"}, "min_severity", "CRITICAL"),
    ("list_findings", {"severities": ["hgh"]}, "severities", "HIGH"),
    ("neighbors", {"ref": "web-1", "direction": "outt"}, "direction", "out"),
    ("find_paths", {"source": "web-1", "target": "app-role", "mode": "flwo"}, "mode", "flow"),
    ("subgraph_export", {"seeds": "web-1", "format": "graphm"}, "format", "graphml"),
    ("centrality_top", {"metric": "betweeness"}, "metric", "betweenness"),
    ("count_assets", {"group_by": "provder"}, "group_by", "provider"),
    ("findings_summary", {"group_by": "sevrity"}, "group_by", "severity"),
    ("load_dataset", {"path": "x", "kind": "prowlr"}, "kind", "prowler"),
    ("export_dataset", {"format": "parqet"}, "format", "parquet"),
])
async def test_bad_enum_value_returns_close_matches(layer, tool, arguments, field, best
                                                    ) -> None:
    result = await fail(layer, tool, arguments)
    assert result.error_code == -32602
    data = error_data(result)
    assert data["field"] == field and data["close_matches"][0] == best
    bad = next(v for v in arguments.values() if isinstance(v, str) and v not in (
        "web-1", "app-role", "x")) if field not in ("asset_types", "severities") else \
        arguments[field][0]
    assert bad not in result.text


async def test_enum_values_accept_case_dash_and_space_variants(layer) -> None:
    out = await ok(layer, "find_assets", {"asset_types": ["s3 bucket", "Rds-Instance"],
                                          "provider": "aws"})
    assert sorted(i["type"] for i in out["items"]) == [
        "RDS_INSTANCE", "S3_BUCKET", "S3_BUCKET"]
