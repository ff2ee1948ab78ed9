"""``extends`` merge rules: child scalars win, mappings merge recursively, deny lists are
united, rules / detectors / rate limits are concatenated, transforms and allow lists are
replaced."""

from __future__ import annotations

from cloudg_nb.policy import Policy

PARENT = {
    "name": "parent",
    "audit": False,
    "deny_tools": ["a"],
    "allow_tools": ["x*", "y*"],
    "transforms": ["sanitize", "redact"],
    "transform_options": {"redact": {"strategies": {"secret": "redact", "pii": "keep"}}},
    "rules": [{"name": "first", "match": {"names": ["x1"]}, "deny_tools": ["x1"]}],
    "rate_limits": ["10/minute"],
    "detectors": [{"name": "ticket", "pattern": "TICKET-[0-9]+"}],
}


def _child(tmp_path, **child) -> Policy:
    path = tmp_path / "parent.json"
    import json

    path.write_text(json.dumps(PARENT))
    return Policy.load({"extends": str(path), **child})


def test_child_scalars_win(tmp_path) -> None:
    assert _child(tmp_path, audit=True).audit is True


def test_deny_lists_are_united(tmp_path) -> None:
    assert _child(tmp_path, deny_tools=["b"]).document["deny_tools"] == ["a", "b"]


def test_allow_lists_are_replaced(tmp_path) -> None:
    assert _child(tmp_path, allow_tools=["z*"]).document["allow_tools"] == ["z*"]


def test_transforms_are_replaced(tmp_path) -> None:
    assert _child(tmp_path, transforms=["annotate"]).document["transforms"] == ["annotate"]


def test_mappings_merge_recursively(tmp_path) -> None:
    doc = _child(
        tmp_path, transform_options={"redact": {"strategies": {"pii": "pseudonymize"}}}
    ).document
    assert doc["transform_options"]["redact"]["strategies"] == {
        "secret": "redact", "pii": "pseudonymize",
    }


def test_rules_rate_limits_and_detectors_are_concatenated(tmp_path) -> None:
    doc = _child(
        tmp_path,
        rules=[{"name": "second", "deny_tools": ["y2"]}],
        rate_limits=["5/second"],
        detectors=[{"name": "badge", "pattern": "BADGE-[0-9]+"}],
    ).document
    assert [r["name"] for r in doc["rules"]] == ["first", "second"]
    assert doc["rate_limits"] == ["10/minute", "5/second"]
    assert [d["name"] for d in doc["detectors"]] == ["ticket", "badge"]


def test_strict_inherits_standard_and_adds_pseudonyms() -> None:
    strategies = Policy.load("strict").document["transform_options"]["redact"]["strategies"]
    assert strategies["secret"] == "redact" and strategies["private_key"] == "drop"
    assert strategies["identifier"] == "pseudonymize"
