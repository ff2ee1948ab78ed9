"""Workspace (layer-reference §10): names, active dataset, eviction, snapshot, change events,
path safety with allowed roots and an output root, and loads that fail without a trace."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cloudg_nb.config import CloudGConfig
from cloudg_nb.estate import (
    DatasetLoadError,
    demo,
    encode_cursor,
    paginate,
    write_inventory_map,
)
from cloudg_nb.layer.enums import ChangeKind
from cloudg_nb.layer.errors import AccessDeniedError, InvalidArgumentsError, NotFoundError
from cloudg_nb.workspace import (
    DatasetNameConflictError,
    NoDatasetError,
    Workspace,
    summary_uri,
)

WS = ("resource", "cloudg://workspace")
DS = ("resource", "cloudg://datasets")
LIST = ("resources", None)


FINDINGS_SUMMARY = ("resource", "cloudg://findings/summary")
COMPLIANCE = ("resource", "cloudg://compliance")
ACTIVE = [FINDINGS_SUMMARY, COMPLIANCE]


def _summary(name: str) -> tuple[str, str]:
    return ("resource", f"cloudg://datasets/{name}/summary")


def _tables(name: str) -> list[tuple[str, str]]:
    """The dataset's summary, assets table and findings table."""
    return [_summary(name), ("resource", f"cloudg://datasets/{name}/assets"),
            ("resource", f"cloudg://datasets/{name}/findings")]


@pytest.fixture
def roots(tmp_path: Path) -> dict[str, Path]:
    data, out, outside = tmp_path / "data", tmp_path / "out", tmp_path / "outside"
    for p in (data, out, outside):
        p.mkdir()
    return {"data": data, "out": out, "outside": outside}


@pytest.fixture
def ws(roots) -> Workspace:
    return Workspace(allowed_roots=[roots["data"]], output_dir=roots["out"])


def _events(ws: Workspace) -> list[tuple[str, str | None]]:
    seen: list[tuple[str, str | None]] = []
    ws.on_change(lambda kind, uri: seen.append((kind, uri)))
    return seen


def test_change_events_carry_change_kinds_equal_to_the_strings_listeners_read(ws) -> None:
    seen = _events(ws)
    ws.add(demo(), "a")
    ws.remove("a")
    assert {type(kind) for kind, _ in seen} == {ChangeKind}
    assert {kind for kind, _ in seen} == {"resource", "resources"}
    assert {json.dumps(kind) for kind, _ in seen} == {'"resource"', '"resources"'}


# -- names and the active dataset -------------------------------------------------------------


def test_first_dataset_becomes_active_and_later_ones_only_when_asked(ws) -> None:
    ws.add(demo(), "a")
    ws.add(demo(), "b")
    assert ws.active == "a"
    ws.add(demo(), "c", activate=True)
    assert ws.active == "c" and ws.get("") is ws.get("c")


def test_existing_name_is_refused_with_existing_and_suggested(ws) -> None:
    ws.add(demo(), "demo")
    with pytest.raises(DatasetNameConflictError) as err:
        ws.add(demo(), "demo")
    assert err.value.data == {"existing": "demo", "suggested": "demo-2"}
    assert err.value.code == -32602


def test_replace_keeps_the_name_and_continues_the_version(ws) -> None:
    first = ws.add(demo(), "demo")
    first.suppress_findings(["f-001"])
    second = ws.add(demo(), "demo", replace=True)
    assert ws.get("demo") is second and second.version == 3


def test_unique_name_appends_a_counter(ws) -> None:
    ws.add(demo(), "x")
    ws.add(demo(), "x-2")
    assert ws.unique_name("x") == "x-3" and ws.unique_name("y") == "y"


@pytest.mark.parametrize("name", ["", "has space", "a/b", "x" * 65])
def test_invalid_names_are_refused(ws, name) -> None:
    with pytest.raises(InvalidArgumentsError):
        ws.add(demo(), name)


def test_empty_workspace_get_raises_no_dataset_with_a_hint(ws) -> None:
    with pytest.raises(NoDatasetError) as err:
        ws.get("")
    assert isinstance(err.value, NotFoundError) and "sample_estate" in err.value.data["hint"]


def test_unknown_dataset_name_lists_close_matches(ws) -> None:
    ws.add(demo(), "prod-estate")
    with pytest.raises(NoDatasetError) as err:
        ws.get("prod-estat")
    assert err.value.data["close_matches"] == ["prod-estate"]


def test_past_max_datasets_the_oldest_inactive_is_evicted(roots) -> None:
    ws = Workspace(allowed_roots=[roots["data"]], max_datasets=2)
    ws.add(demo(), "a")
    ws.add(demo(), "b")
    seen = _events(ws)
    ws.add(demo(), "c")
    assert ws.names() == ["a", "c"] and ws.active == "a"
    assert seen[-6:] == [LIST, WS, DS, ("resource", summary_uri("b")), *_tables("b")[1:]]


def test_evictions_are_recorded_for_the_call_that_caused_them(roots) -> None:
    ws = Workspace(allowed_roots=[roots["data"]], max_datasets=2)
    ws.add(demo(), "a")
    ws.add(demo(), "b")
    with ws.evictions() as evicted:
        ws.add(demo(), "c")
    assert evicted == ["b"]


def test_evictions_outside_the_block_are_not_recorded(roots) -> None:
    ws = Workspace(allowed_roots=[roots["data"]], max_datasets=2)
    ws.add(demo(), "a")
    ws.add(demo(), "b")
    with ws.evictions() as evicted:
        pass
    ws.add(demo(), "c")
    assert "b" not in ws and evicted == []


def test_removing_the_active_dataset_activates_the_most_recent_one(ws) -> None:
    for n in ("a", "b", "c"):
        ws.add(demo(), n)
    ws.remove("a")
    assert ws.active == "c"
    ws.remove("c")
    ws.remove("b")
    assert ws.active is None and ws.names() == []


def test_snapshot_deep_copies_without_activating(ws) -> None:
    ws.add(demo(), "demo")
    snap = ws.snapshot("demo")
    assert snap.name == "demo-snapshot" and ws.active == "demo"
    ws.get("demo").suppress_findings(["f-001"])
    assert not snap.findings.set_index("id").at["f-001", "is_suppressed"]


def test_status_lists_datasets_with_versions(ws) -> None:
    ws.add(demo(), "demo")
    status = ws.status()
    assert status["datasets"] == ["demo"] and status["active"] == "demo"
    assert status["loaded"][0] | {"source": None} == {
        "name": "demo", "version": 1, "active": True, "source": None, "kind": "sample",
        "assets": 60, "edges": 77, "findings": 15, "owner": "analyst"}


# -- change events ------------------------------------------------------------------------------


def test_adding_the_first_dataset_fires_list_change_its_tables_and_the_active_uris(ws) -> None:
    seen = _events(ws)
    ws.add(demo(), "demo")
    assert seen == [LIST, WS, DS, *_tables("demo"), *ACTIVE]


def test_adding_an_inactive_dataset_leaves_the_active_uris_alone(ws) -> None:
    ws.add(demo(), "a")
    seen = _events(ws)
    ws.add(demo(), "b")
    assert seen == [LIST, WS, DS, *_tables("b")]


def test_adding_with_activate_fires_the_active_uris(ws) -> None:
    ws.add(demo(), "a")
    seen = _events(ws)
    ws.add(demo(), "b", activate=True)
    assert seen == [LIST, WS, DS, *_tables("b"), *ACTIVE]


def test_replacing_the_active_dataset_fires_its_tables_and_the_active_uris(ws) -> None:
    ws.add(demo(), "demo")
    seen = _events(ws)
    ws.add(demo(), "demo", replace=True)
    assert seen == [WS, DS, *_tables("demo"), *ACTIVE]


def test_select_fires_the_workspace_uris_and_the_active_uris(ws) -> None:
    ws.add(demo(), "a")
    ws.add(demo(), "b")
    seen = _events(ws)
    ws.select("b")
    assert seen == [WS, DS, *ACTIVE]


def test_removing_the_active_dataset_fires_list_change_its_tables_and_the_active_uris(
    ws,
) -> None:
    ws.add(demo(), "demo")
    seen = _events(ws)
    ws.remove("demo")
    assert seen == [LIST, WS, DS, *_tables("demo"), *ACTIVE]


def test_removing_an_inactive_dataset_leaves_the_active_uris_alone(ws) -> None:
    ws.add(demo(), "a")
    ws.add(demo(), "b")
    seen = _events(ws)
    ws.remove("b")
    assert seen == [LIST, WS, DS, *_tables("b")]


def test_active_dataset_mutation_fires_its_tables_and_the_active_uris_and_stales_cursors(
    ws,
) -> None:
    ds = ws.add(demo(), "demo")
    cursor = encode_cursor(10, dataset="demo", version=ds.version, args={})
    seen = _events(ws)
    ds.suppress_findings(["f-001"], reason="accepted")
    assert seen == [WS, DS, *_tables("demo"), *ACTIVE]
    with pytest.raises(InvalidArgumentsError):
        paginate(list(range(20)), dataset="demo", version=ds.version, args={}, cursor=cursor)


def test_inactive_dataset_mutation_fires_only_its_own_uris(ws) -> None:
    ws.add(demo(), "a")
    ds = ws.add(demo(), "b")
    seen = _events(ws)
    ds.suppress_findings(["f-001"])
    assert seen == [WS, DS, *_tables("b")]


def test_removed_dataset_mutations_fire_nothing(ws) -> None:
    ds = ws.add(demo(), "demo")
    ws.remove("demo")
    seen = _events(ws)
    ds.suppress_findings(["f-001"])
    assert seen == []


def test_unsubscribed_listener_hears_nothing(ws) -> None:
    seen: list = []
    unsubscribe = ws.on_change(lambda kind, uri: seen.append(kind))
    unsubscribe()
    ws.add(demo(), "demo")
    assert seen == []


# -- paths --------------------------------------------------------------------------------------


def test_relative_paths_resolve_against_the_first_root(ws, roots) -> None:
    assert ws.resolve_path("estate/inventory-map.json") == \
        (roots["data"] / "estate" / "inventory-map.json").resolve()


def test_path_outside_the_roots_is_access_denied(ws, roots) -> None:
    with pytest.raises(AccessDeniedError) as err:
        ws.resolve_path(roots["outside"] / "x.json")
    assert err.value.code == -31001
    assert "outside" not in err.value.message.replace("outside the allowed", "")


def test_a_refused_path_says_which_variable_allows_more_folders(ws, roots) -> None:
    with pytest.raises(AccessDeniedError) as err:
        ws.resolve_path(roots["outside"] / "x.json")
    assert "the environment variable CLOUDG_MCP_ALLOWED_ROOTS allows more" in err.value.message


def test_a_refused_path_names_the_setting_of_where_the_workspace_runs(roots) -> None:
    config = CloudGConfig(allowed_roots=[roots["data"]], output_dir=roots["out"],
                          roots_setting="Somewhere.roots")
    with pytest.raises(AccessDeniedError) as err:
        Workspace(config).resolve_path(roots["outside"] / "x.json")
    assert "Somewhere.roots allows more" in err.value.message
    assert err.value.data["setting"] == "Somewhere.roots"
    assert "CLOUDG_MCP_ALLOWED_ROOTS" not in err.value.message


def test_dotdot_cannot_escape_a_root(ws) -> None:
    with pytest.raises(AccessDeniedError):
        ws.resolve_path("../outside/x.json")


def test_symlink_out_of_a_root_is_access_denied(ws, roots) -> None:
    secret = roots["outside"] / "inventory-map.json"
    write_inventory_map(demo(), roots["outside"])
    (roots["data"] / "link.json").symlink_to(secret)
    with pytest.raises(AccessDeniedError):
        ws.load(roots["data"] / "link.json")
    assert ws.names() == []


def test_writes_only_under_the_output_root(ws, roots) -> None:
    target = ws.output_path("reports/estate.json")
    assert target.parent.is_dir() and target.is_relative_to(roots["out"].resolve())
    with pytest.raises(AccessDeniedError):
        ws.resolve_path(roots["data"] / "x.json", write=True)


@pytest.mark.parametrize("path", ["a\x00secret", "x" * 5000, "d/" + "y" * 300 + "/f.json"],
                         ids=["nul", "long_path", "long_name"])
def test_nul_or_over_long_paths_are_invalid_arguments_without_the_path(ws, path) -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        ws.resolve_path(path, write=True)
    text = err.value.message + repr(err.value.data)
    assert "secret" not in text and "xxxxxxxxxx" not in text and "yyyyyyyyyy" not in text


async def test_export_replaces_a_symlink_in_the_output_folder_instead_of_following_it(
    roots,
) -> None:
    from cloudg_nb import CloudGMCPLayer

    victim = roots["outside"] / "victim.json"
    victim.write_text("keep me")
    folder = roots["out"] / "evil"
    folder.mkdir(parents=True)
    (folder / "inventory-map.json").symlink_to(victim)
    layer = CloudGMCPLayer(CloudGConfig(allowed_roots=[roots["data"]], output_dir=roots["out"]),
                           policy="standard")
    await layer.call_tool("sample_estate", {"name": "demo"})
    result = await layer.call_tool("export_dataset", {"folder": "evil"})
    assert not result.is_error
    assert victim.read_text() == "keep me"
    written = folder / "inventory-map.json"
    assert not written.is_symlink() and json.loads(written.read_text())["assets"]
    assert sorted(p.name for p in folder.iterdir()) == ["findings.json", "inventory-map.json"]


def test_roots_come_from_the_environment(monkeypatch, roots) -> None:
    monkeypatch.setenv("CLOUDG_MCP_ALLOWED_ROOTS",
                       os.pathsep.join([str(roots["data"]), str(roots["outside"])]))
    ws = Workspace(CloudGConfig(output_dir=roots["out"]))
    assert ws.resolve_path(roots["outside"] / "a.json").parent == roots["outside"].resolve()


# -- loading ------------------------------------------------------------------------------------


def test_load_adds_and_activates_under_the_file_stem(ws, roots) -> None:
    write_inventory_map(demo(), roots["data"] / "prod")
    ds = ws.load("prod")
    assert ws.names() == ["prod"] and ws.active == "prod" and len(ds.assets) == 60
    again = ws.load(roots["data"] / "prod" / "inventory-map.json")
    assert again.name == "prod-2" and ws.active == "prod-2"
    assert ws.load("prod", activate=False).name == "prod-3" and ws.active == "prod-2"


def test_load_with_a_taken_name_is_refused_before_reading(ws, roots) -> None:
    ws.add(demo(), "prod")
    (roots["data"] / "broken.json").write_text("{")
    with pytest.raises(DatasetNameConflictError):
        ws.load("broken.json", name="prod")


def test_failed_load_leaves_the_workspace_exactly_as_it_was(ws, roots) -> None:
    ws.add(demo(), "a")
    ws.add(demo(), "b")
    ws.get("b").suppress_findings(["f-001"])
    before = (ws.names(), ws.active, {n: ws.get(n).version for n in ws.names()})
    bad = roots["data"] / "truncated"
    write_inventory_map(demo(), bad)
    inv = bad / "inventory-map.json"
    inv.write_text(inv.read_text()[: len(inv.read_text()) // 2])
    seen = _events(ws)
    for kwargs in ({"name": "b", "replace": True}, {"name": "c"}, {}):
        with pytest.raises(DatasetLoadError):
            ws.load(bad, **kwargs)
    assert (ws.names(), ws.active, {n: ws.get(n).version for n in ws.names()}) == before
    assert seen == []


def test_load_sample_adds_generated_estates(ws) -> None:
    ws.load_sample("demo")
    ws.load_sample("scaled", n=500, name="big", activate=False)
    assert ws.names() == ["demo", "big"] and ws.active == "demo"
    assert len(ws.get("big").assets) == 500


def test_past_the_asset_budget_the_oldest_inactive_datasets_are_evicted(tmp_path) -> None:
    from cloudg_nb.estate import scaled

    ws = Workspace(CloudGConfig(allowed_roots=[tmp_path], max_total_assets=2_500))
    ws.add(scaled(1_000), "a", activate=True)
    ws.add(scaled(1_000), "b")
    ws.add(scaled(1_000), "c")  # 3,000 > 2,500: the oldest inactive ("b") goes
    assert ws.names() == ["a", "c"]


def test_a_dataset_larger_than_the_asset_budget_is_refused(tmp_path) -> None:
    from cloudg_nb.estate import scaled

    ws = Workspace(CloudGConfig(allowed_roots=[tmp_path], max_total_assets=500))
    with pytest.raises(InvalidArgumentsError) as err:
        ws.add(scaled(1_000), "big")
    assert err.value.data == {"assets": 1_000, "max_total_assets": 500}
    assert ws.names() == []


def test_the_file_system_root_is_never_an_implicit_read_root(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("CLOUDG_MCP_ALLOWED_ROOTS", raising=False)
    monkeypatch.chdir("/")
    config = CloudGConfig(output_dir=tmp_path / "out")
    assert Path("/") not in config.read_roots()


@pytest.mark.parametrize(("raw", "expected"), [("3", 3), ("", 16), ("zero", 16), ("0", 16)])
def test_the_dataset_limit_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: int,
) -> None:
    monkeypatch.setenv("CLOUDG_MCP_MAX_DATASETS", raw)
    assert CloudGConfig().max_datasets == expected


def test_the_asset_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDG_MCP_MAX_ASSETS", "1234")
    assert CloudGConfig().max_total_assets == 1234


def test_accounts_by_provider_lists_each_pair_once_in_first_seen_order() -> None:
    """The accounts the vault learns per provider: pairs with a missing cell are skipped,
    each pair counts once, in the order the assets first name it, values read as text."""
    import pandas as pd

    from cloudg_nb.estate import Dataset
    from cloudg_nb.workspace import _accounts_by_provider

    assets = pd.DataFrame({
        "id": [f"a{i}" for i in range(7)],
        "provider": ["gcp", "aws", None, "aws", "gcp", "aws", "azure"],
        "account_id": ["proj-b", "111122223333", "444455556666", "111122223333", "proj-a",
                       None, 12],
    })
    ds = Dataset(assets, pd.DataFrame(), pd.DataFrame(), normalize=False)
    assert _accounts_by_provider(ds) == {"gcp": ["proj-b", "proj-a"], "aws": ["111122223333"],
                                         "azure": ["12"]}
    empty = Dataset(assets.iloc[:0], pd.DataFrame(), pd.DataFrame(), normalize=False)
    assert _accounts_by_provider(empty) == {}
