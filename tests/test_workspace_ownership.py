"""Workspace ownership: every dataset has an owner (the analyst side or the assistant whose call
made it); an assistant's active dataset is its own; an assistant's share is capped and a full
share is refused, never evicting anyone's data; a change to another principal's dataset goes
through only when the running call's approval names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudg_nb.acting import acting
from cloudg_nb.config import CloudGConfig
from cloudg_nb.estate import demo
from cloudg_nb.layer.errors import AccessDeniedError
from cloudg_nb.workspace import Workspace

BOT = "assistant:bot"
OTHER = "assistant:other"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    config = CloudGConfig(allowed_roots=[tmp_path], output_dir=tmp_path / "out",
                          max_datasets=3, assistant_max_datasets=2)
    workspace = Workspace(config)
    workspace.add(demo(), "demo")
    return workspace


def test_a_dataset_belongs_to_whoever_added_it(ws: Workspace) -> None:
    with acting(BOT):
        ws.add(demo(), "mine")
        ws.snapshot("demo", "copy")
    assert ws.owner_of("demo") is None
    assert ws.owner_of("mine") == BOT and ws.owner_of("copy") == BOT
    lines = {line["name"]: line["owner"] for line in ws.status()["loaded"]}
    assert lines == {"demo": "analyst", "mine": BOT, "copy": BOT}


def test_an_assistants_selection_is_its_own(ws: Workspace) -> None:
    with acting(BOT):
        ws.add(demo(), "mine", activate=True)
        assert ws.get("").name == "mine" and ws.active_name() == "mine"
        ws.select("demo")
        ws.select("mine")
    with acting(OTHER):
        assert ws.get("").name == "demo"  # another assistant starts at the analyst's
    assert ws.active == "demo" and ws.get("").name == "demo"


def test_an_assistants_selection_falls_back_to_the_analysts_when_its_dataset_goes(
        ws: Workspace) -> None:
    with acting(BOT):
        ws.add(demo(), "mine", activate=True)
        ws.remove("mine")
        assert ws.get("").name == "demo"


def test_a_full_share_refuses_the_assistant_and_unloads_nothing(ws: Workspace) -> None:
    ws.add(demo(), "second")
    with acting(BOT):
        ws.snapshot("demo", "a")
        ws.snapshot("demo", "b")
        with pytest.raises(AccessDeniedError) as refused:
            ws.snapshot("demo", "c")
        with pytest.raises(AccessDeniedError):
            ws.load_sample("demo", name="d")
    assert ws.names() == ["demo", "second", "a", "b"]
    data = refused.value.data
    assert data["reason"] == "quota" and data["owner"] == BOT
    assert data["held"] == ["a", "b"] and data["max_datasets"] == 2
    assert "unload" in refused.value.message.lower()


def test_an_assistants_share_of_assets_is_capped_too(tmp_path: Path) -> None:
    ws = Workspace(CloudGConfig(allowed_roots=[tmp_path], assistant_max_assets=100))
    ws.add(demo(), "demo")  # 60 assets
    with acting(BOT):
        ws.snapshot("demo", "a")
        with pytest.raises(AccessDeniedError) as refused:
            ws.snapshot("demo", "b")
    assert refused.value.data["max_assets"] == 100
    assert ws.names() == ["demo", "a"]


def test_the_analysts_loads_evict_only_the_analysts_own_datasets(ws: Workspace) -> None:
    with acting(BOT):
        ws.snapshot("demo", "bot-copy")
    ws.add(demo(), "b")
    ws.add(demo(), "c")
    with ws.evictions() as evicted:
        ws.add(demo(), "d")  # the analyst's fourth: past max_datasets=3
    assert evicted == ["b"]  # the oldest of the analyst's inactive ones
    assert "bot-copy" in ws and ws.owner_of("bot-copy") == BOT


def test_an_assistants_loads_never_evict(ws: Workspace) -> None:
    ws.add(demo(), "b")
    ws.add(demo(), "c")  # the analyst's share is full (3)
    with acting(BOT), ws.evictions() as evicted:
        ws.snapshot("demo", "x")
        ws.snapshot("demo", "y")
    assert evicted == [] and ws.names() == ["demo", "b", "c", "x", "y"]


@pytest.mark.parametrize("change", ["unload", "replace", "suppress", "update"])
def test_an_assistant_cannot_change_the_analysts_dataset_unapproved(
        ws: Workspace, change: str) -> None:
    ds = ws.get("demo")
    before = (ws.names(), ds.version)
    with acting(BOT), pytest.raises(AccessDeniedError) as refused:
        if change == "unload":
            ws.remove("demo")
        elif change == "replace":
            ws.add(demo(), "demo", replace=True)
        elif change == "suppress":
            ds.suppress_findings(["f-001"], "accepted")
        else:
            ds.update(findings=ds.findings.iloc[:1])
    assert refused.value.data["reason"] == "not-approved"
    assert refused.value.data["owner"] == "analyst"
    assert (ws.names(), ds.version) == before
    assert ws.get("demo") is ds


def test_an_approval_lets_through_exactly_the_changes_it_names(ws: Workspace) -> None:
    ws.add(demo(), "other")
    epoch = ws.get("demo").epoch
    with acting(BOT, frozenset({("change_suppressions", "demo", epoch)})):
        ws.get("demo").suppress_findings(["f-001"], "accepted")
        with pytest.raises(AccessDeniedError):
            ws.get("other").suppress_findings(["f-001"], "accepted")
        with pytest.raises(AccessDeniedError):
            ws.remove("demo")
    with acting(BOT, frozenset({("unload_dataset", "demo", epoch)})):
        ws.remove("demo")
    assert ws.names() == ["other"] and ws.active == "other"


def test_an_approval_covers_the_dataset_it_showed_not_its_name(ws: Workspace) -> None:
    shown = ws.get("demo").epoch
    ws.add(demo(), "demo", replace=True)  # replaced by the analyst while the call waited
    with acting(BOT, frozenset({("unload_dataset", "demo", shown)})), \
            pytest.raises(AccessDeniedError):
        ws.remove("demo")


def test_an_assistant_changes_its_own_datasets_freely(ws: Workspace) -> None:
    with acting(BOT):
        ws.snapshot("demo", "mine")
        ws.get("mine").suppress_findings(["f-001"], "accepted")
        ws.add(demo(), "mine", replace=True)
        ws.remove("mine")
    assert ws.names() == ["demo"]


def test_one_assistant_cannot_change_anothers_dataset(ws: Workspace) -> None:
    with acting(OTHER):
        ws.snapshot("demo", "theirs")
    with acting(BOT), pytest.raises(AccessDeniedError) as refused:
        ws.remove("theirs")
    assert refused.value.data["owner"] == OTHER


def test_a_replacement_keeps_its_owner(ws: Workspace) -> None:
    with acting(BOT, frozenset({("replace_dataset", "demo", ws.get("demo").epoch)})):
        ws.add(demo(), "demo", replace=True)
    assert ws.owner_of("demo") is None  # still the analyst's: the bot cannot now unload it
    with acting(BOT), pytest.raises(AccessDeniedError):
        ws.remove("demo")


def test_unloading_the_analysts_active_dataset_prefers_the_analysts_own_next(
        ws: Workspace) -> None:
    ws.add(demo(), "older")
    with acting(BOT):
        ws.snapshot("demo", "newest-bot")
    assert ws.successor("demo") == "older"
    with acting(BOT, frozenset({("unload_dataset", "demo", ws.get("demo").epoch)})):
        ws.remove("demo")
    assert ws.active == "older"


def test_a_dataset_let_go_is_no_longer_guarded(ws: Workspace) -> None:
    ds = ws.remove("demo")
    with acting(BOT):
        ds.suppress_findings(["f-001"], "ok")  # nobody's dataset any more: no owner to ask
    assert ds.guard is None


def test_overwriting_a_file_needs_an_approval_of_that_very_file(ws: Workspace) -> None:
    target = ws.output_path("export/assets.csv")
    target.write_text("id\n")
    shown = ws.shown_path(target, write=True)
    stamp = target.stat().st_mtime_ns
    new = target.with_name("edges.csv")
    with acting(BOT):
        ws.guard_overwrite([new])  # a new file: nobody's to lose
        with pytest.raises(AccessDeniedError) as refused:
            ws.guard_overwrite([target])
    assert refused.value.data == {"reason": "not-approved", "change": "overwrite_file",
                                  "file": shown}
    with acting(BOT, frozenset({("overwrite_file", shown, stamp)})):
        ws.guard_overwrite([target])
        target.write_text("id\nchanged-since\n")
        import os
        os.utime(target, ns=(stamp + 10**9, stamp + 10**9))
        with pytest.raises(AccessDeniedError):
            ws.guard_overwrite([target])  # not the file the approval showed any more
    ws.guard_overwrite([target])  # the analyst: unrestricted
