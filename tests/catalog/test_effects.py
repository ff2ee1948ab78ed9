"""The table of effects: every tool of the catalog has an entry, the design note's table says the
same, entries agree with the tools' capabilities, and a call's plan shows what it will do —
resolved paths, every flag, the datasets touched with their owner, each finding named — or
refuses a call too large to show."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.acting import acting
from cloudg_nb.catalog import default_registry
from cloudg_nb.catalog.effects import (
    EFFECTS,
    MAX_SHOWN_FINDINGS,
    MAX_SHOWN_ITEMS,
    Effect,
    EffectNotShowable,
    plan_call,
)
from cloudg_nb.config import CloudGConfig
from cloudg_nb.estate import demo, write_inventory_map
from cloudg_nb.layer.enums import Capability
from cloudg_nb.oversight import ActivityLog, ApprovalDesk
from cloudg_nb.oversight.catalog import register as register_oversight
from cloudg_nb.workspace import Workspace

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "DESIGN-governance.md"
BOT = "assistant:bot"


class _Assistants:
    def describe_assistants(self) -> list[dict[str, Any]]:
        return []

    async def revoke_assistant(self, name: str, by: str) -> dict[str, Any] | None:
        return None


def _catalog_tools() -> dict[str, Any]:
    registry = register_oversight(default_registry(), activity=ActivityLog(),
                                  desk=ApprovalDesk(), assistants=_Assistants())
    return registry.tools


def _design_table() -> dict[str, set[str]]:
    """The ``| tool | effects |`` table of the design note."""
    text = DESIGN.read_text()
    start = text.index("| tool | effects |")
    table = text[start:text.index("\n\n", start)]
    rows = re.findall(r"^\| `([a-z_]+)` \| (.+) \|$", table, flags=re.M)
    return {tool: set(re.findall(r"`([a-z_]+)`", cell)) for tool, cell in rows}


def test_every_tool_of_the_catalog_has_an_entry_and_no_entry_is_stale() -> None:
    tools = set(_catalog_tools())
    assert tools - set(EFFECTS) == set(), "tools without an entry in catalog/effects.py"
    assert set(EFFECTS) - tools == set(), "entries for tools the catalog does not have"


def test_the_design_notes_table_says_what_the_code_says() -> None:
    table = _design_table()
    assert table, "no table found in docs/DESIGN-governance.md"
    assert table == {tool: {str(e) for e in entry.effects} for tool, entry in EFFECTS.items()}


def test_entries_agree_with_what_each_tool_declares() -> None:
    for name, spec in _catalog_tools().items():
        effects = EFFECTS[name].effects
        writes = Capability.WRITE_STATE in spec.capabilities
        if effects == {Effect.READ}:
            assert spec.read_only and not writes, name
        if Capability.READ_FS in spec.capabilities:
            assert Effect.READ_FILES in effects, name
        if Capability.WRITE_FS in spec.capabilities:
            assert Effect.WRITE_FILES in effects, name
        if Capability.REVEAL in spec.capabilities:
            assert Effect.REVEAL in effects, name
        shared = effects & {Effect.REPLACE_DATASET, Effect.UNLOAD_DATASET,
                            Effect.CHANGE_SUPPRESSIONS}
        if shared:  # a tool that can change others' data plans each call
            assert EFFECTS[name].plan is not None, name


# -- plans ------------------------------------------------------------------------------------


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "estates"
    (root / "prod").mkdir(parents=True)
    write_inventory_map(demo(), root / "prod")
    workspace = Workspace(CloudGConfig(allowed_roots=[root], output_dir=tmp_path / "out"))
    workspace.add(demo(), "demo")
    return workspace


def _plan(ws: Workspace, tool: str, **arguments: Any) -> Any:
    with acting(BOT):
        return plan_call(ws, tool, arguments, BOT)


def test_a_padded_path_is_shown_as_the_file_it_resolves_to_with_every_flag(
        ws: Workspace) -> None:
    padded = "./" * 2000 + "prod/inventory-map.json"  # 4,023 characters: cut at 4,000 before
    plan = _plan(ws, "load_dataset", path=padded, name="demo", kind="auto", activate=True,
                 replace=True, strict=False)
    read, replaced, selected = plan.items
    assert read.effect is Effect.READ_FILES and read.detail["path"].endswith(
        "prod/inventory-map.json") and "./" not in read.detail["path"]
    assert replaced.effect is Effect.REPLACE_DATASET and replaced.others
    assert replaced.dataset == "demo" and replaced.owner is None
    assert replaced.detail["assets"] == 60 and replaced.detail["analysts_active_dataset"]
    assert selected.effect is Effect.SELECT_DATASET and not selected.others
    view = plan.view()
    assert view["arguments"]["replace"] is True and view["arguments"]["activate"] is True
    assert view["arguments"]["path"] == read.detail["path"]
    assert "REPLACES dataset demo" in view["summary"]
    assert plan.permitted() == frozenset({("replace_dataset", "demo", ws.get("demo").epoch)})


def test_a_load_under_a_new_name_changes_nobodys_data(ws: Workspace) -> None:
    plan = _plan(ws, "load_dataset", path="prod", name=None, kind="auto", activate=False,
                 replace=False, strict=False)
    assert [i.effect for i in plan.items] == [Effect.READ_FILES, Effect.ADD_DATASET]
    assert plan.items[1].dataset == "prod" and plan.items[1].owner == BOT
    assert plan.others == [] and plan.permitted() == frozenset()


def test_a_suppression_names_each_finding_with_title_severity_and_asset(
        ws: Workspace) -> None:
    plan = _plan(ws, "suppress_findings", ids=["f-001", "f-404"], reason="accepted risk",
                 dataset="")
    (item,) = plan.items
    assert item.others and item.dataset == "demo"
    (finding,) = item.detail["findings_named"]
    assert finding == {"id": "f-001", "severity": "CRITICAL",
                       "title": "CVE-2024-3094: backdoored xz-utils package",
                       "asset": "web-1", "suppressed_now": False}
    assert item.detail["unknown_ids"] == ["f-404"]
    assert item.detail["reason"] == "accepted risk"


def test_a_suppression_in_the_callers_own_dataset_touches_nobody_else(ws: Workspace) -> None:
    with acting(BOT):
        ws.snapshot("demo", "mine")
    plan = _plan(ws, "unsuppress_findings", ids=["f-001"], dataset="mine")
    assert plan.others == []


def test_a_call_too_large_to_show_is_refused_not_cut(ws: Workspace) -> None:
    ids = [f"f-{i:04d}" for i in range(MAX_SHOWN_FINDINGS + 1)]
    with pytest.raises(EffectNotShowable) as refused:
        _plan(ws, "suppress_findings", ids=ids, reason=None, dataset="")
    assert refused.value.data["findings"] == MAX_SHOWN_FINDINGS + 1
    assert "split" in refused.value.message.lower()


def test_an_unload_says_what_becomes_the_analysts_active_dataset(ws: Workspace) -> None:
    ws.add(demo(), "older")
    ws.select("demo")
    (item,) = _plan(ws, "unload_dataset", name="demo").items
    assert item.others and item.detail["analysts_active_after"] == "older"


def test_an_export_names_the_files_it_overwrites(ws: Workspace) -> None:
    folder = ws.output_root / "demo"
    folder.mkdir(parents=True)
    (folder / "assets.csv").write_text("id\n")
    plan = _plan(ws, "export_dataset", dataset="", folder=None, format="csv")
    (item,) = plan.items
    assert item.detail["overwrites"] == ["assets.csv"] and item.others
    shown = ws.shown_path(folder / "assets.csv", write=True)
    assert plan.permitted() == frozenset(
        {("overwrite_file", shown, (folder / "assets.csv").stat().st_mtime_ns)})
    fresh = _plan(ws, "export_dataset", dataset="", folder="elsewhere", format="csv")
    assert fresh.others == []  # new files overwrite nobody's
    assert item.detail["folder"].endswith("demo") and str(ws.output_root) not in str(
        item.detail["folder"])


def test_arguments_are_summarised_without_dropping_a_key(ws: Workspace) -> None:
    plan = _plan(ws, "some_registry_tool", note="x" * 5000,
                 ids=[str(i) for i in range(500)], nested={"a": {"b": {"c": 1}}}, flag=False)
    shown = plan.arguments
    assert set(shown) == {"note", "ids", "nested", "flag"}
    assert shown["flag"] is False and "5,000 characters" in shown["note"]
    assert len(shown["ids"]) == MAX_SHOWN_ITEMS + 1 and "500 items" in shown["ids"][-1]
    assert plan.items == []  # a tool without a planner plans no change


def test_a_plan_of_a_call_that_will_fail_is_empty(ws: Workspace) -> None:
    assert _plan(ws, "unload_dataset", name="nope").items == []
    assert _plan(ws, "load_dataset", path="/etc/passwd", name=None, kind="auto",
                 activate=True, replace=False, strict=False).items == []
