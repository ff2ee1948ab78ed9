"""Projection: include/exclude key-path globs, per-string and per-list caps, and a character
budget for the whole value, all keeping shapes and reporting what was cut."""

from __future__ import annotations

import json

from cloudg_nb.transforms import Project, TransformContext


def _run(value, **options):
    ctx = TransformContext()
    return Project(**options)(value, ctx), ctx.report


ASSETS = {"assets": [{"id": f"a{i}", "name": f"web-{i}", "user_data": "x" * 50,
                      "tags": {"env": "prod", "team": "pay"}} for i in range(100)]}


def test_exclude_drops_matching_keys_at_any_depth() -> None:
    out, report = _run(ASSETS, exclude=["user_data", "*.tags.team"])
    assert out["assets"][0] == {"id": "a0", "name": "web-0", "tags": {"env": "prod"}}
    assert report["projection"]["excluded"] == 200


def test_include_keeps_only_matching_paths() -> None:
    out, _ = _run(ASSETS, include=["assets.id", "assets.name"])
    assert out["assets"][5] == {"id": "a5", "name": "web-5"}


def test_max_string_cuts_long_strings_with_a_marker() -> None:
    out, report = _run({"log": "y" * 1000}, max_string=100)
    assert out["log"] == "y" * 100 + "…[+900 chars]"
    assert report["projection"] == {"strings_cut": 1, "chars_removed": 900}


def test_max_list_cuts_long_lists() -> None:
    out, report = _run({"items": list(range(50))}, max_list=10)
    assert out == {"items": list(range(10))}
    assert report["projection"] == {"lists_cut": 1, "items_removed": 40}


def test_budget_shrinks_the_value_under_max_chars_keeping_its_shape() -> None:
    out, report = _run(ASSETS, max_chars=3000)
    assert len(json.dumps(out, separators=(",", ":"))) <= 3000
    assert isinstance(out["assets"], list) and set(out["assets"][0]) == set(ASSETS["assets"][0])
    assert report["projection"]["items_removed"] > 0


def test_values_within_budget_are_returned_unchanged() -> None:
    out, report = _run(ASSETS, max_chars=10_000_000, max_string=1000)
    assert out is ASSETS and report == {}


def test_a_bare_text_is_cut_to_the_budget() -> None:
    out, _ = _run("z" * 500, max_chars=100)
    assert out.startswith("z" * 100) and out.endswith("…[+400 chars]")


def test_budget_cuts_inside_items_when_the_outer_list_is_short() -> None:
    value = {"groups": [{"members": [f"user-{i:05d}" for i in range(2000)]} for _ in range(3)]}
    out, _ = _run(value, max_chars=5000)
    assert len(json.dumps(out, separators=(",", ":"))) <= 5000
    assert len(out["groups"]) == 3 and all(g["members"] for g in out["groups"])


def test_the_callers_value_is_not_mutated_by_the_budget() -> None:
    value = {"items": [{"n": i, "tags": list(range(20))} for i in range(200)]}
    snapshot = json.dumps(value)
    _run(value, max_chars=2000)
    assert json.dumps(value) == snapshot
