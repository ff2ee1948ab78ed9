"""Bad policy documents fail at load time with one clear error naming the place: unknown keys
(top level and nested), extends cycles, malformed globs, bad rates, unknown transforms,
strategies, detectors, capabilities and sensitivity levels."""

from __future__ import annotations

import pytest

from cloudg_nb.policy import Policy, PolicyError


def _error(doc) -> str:
    with pytest.raises(PolicyError) as err:
        Policy.load(doc)
    return str(err.value)


def test_unknown_top_level_key_names_the_key() -> None:
    assert "unknown key 'transform'" in _error({"transform": ["redact"]})


def test_unknown_key_in_a_rule_match_names_the_rule_and_key() -> None:
    message = _error({"rules": [{"match": {"role": ["x"]}}]})
    assert "rules[0].match" in message and "unknown key 'role'" in message


def test_unknown_key_in_a_role_names_the_role() -> None:
    message = _error({"roles": {"analyst": {"deny_tool": ["x"]}}})
    assert "roles.analyst" in message and "'deny_tool'" in message


def test_extends_cycle_names_every_file_in_the_chain(tmp_path) -> None:
    a, b, c = (tmp_path / f"{n}.yaml" for n in "abc")
    a.write_text("extends: b.yaml\n")
    b.write_text("extends: c.yaml\n")
    c.write_text("extends: a.yaml\n")
    message = _error(str(a))
    assert "cycle" in message and "a.yaml -> b.yaml -> c.yaml -> a.yaml" in message


def test_a_document_extending_itself_is_a_cycle(tmp_path) -> None:
    path = tmp_path / "self.yaml"
    path.write_text("extends: self.yaml\n")
    assert "cycle" in _error(str(path))


def test_bad_glob_names_the_list() -> None:
    message = _error({"rules": [{"match": {"names": ["rep[ort"]}}]})
    assert "rules[0].match.names" in message and "malformed glob" in message


def test_bad_rate_names_the_place_and_the_accepted_forms() -> None:
    message = _error({"rate_limits": [{"rate": "2/fortnight"}]})
    assert "rate_limits[0].rate" in message and "N/minute" in message


def test_bad_rate_in_a_role_names_the_role() -> None:
    message = _error({"roles": {"analyst": {"rate_limits": ["lots"]}}})
    assert "roles.analyst.rate_limits[0]" in message


def test_bad_rate_scope_is_an_error() -> None:
    assert "scope" in _error({"rate_limits": [{"rate": "5/minute", "scope": "planet"}]})


def test_unknown_transform_names_the_list_position() -> None:
    message = _error({"transforms": ["sanitize", "redactt"]})
    assert "transforms[1]" in message and "'redactt'" in message


def test_unknown_strategy_names_the_option() -> None:
    message = _error({"transform_options": {"redact": {"strategies": {"secret": "shred"}}}})
    assert "transform_options.redact.strategies.secret" in message and "shred" in message


def test_unknown_transform_option_is_an_error() -> None:
    assert "unknown option 'budget'" in _error({"transform_options": {"project": {"budget": 5}}})


def test_bad_custom_detector_pattern_names_the_detector() -> None:
    message = _error({"detectors": [{"name": "ticket", "pattern": "TICKET-(["}]})
    assert "detectors[0].pattern" in message


def test_unknown_disabled_detector_is_an_error() -> None:
    assert "'no_such_detector'" in _error({"disabled_detectors": ["no_such_detector"]})


def test_unknown_capability_is_an_error() -> None:
    assert "deny_capabilities" in _error({"deny_capabilities": ["teleport"]})


def test_unknown_sensitivity_level_is_an_error() -> None:
    assert "max_sensitivity" in _error({"max_sensitivity": "secret-ish"})


def test_unknown_vault_key_is_an_error() -> None:
    assert "vault" in _error({"vault": {"password": "x"}})


def test_errors_from_a_file_name_the_file(tmp_path) -> None:
    path = tmp_path / "team.yaml"
    path.write_text("rate_limits: ['often']\n")
    assert "file team.yaml" in _error(str(path))


def test_relative_extends_is_resolved_next_to_the_extending_file(tmp_path) -> None:
    (tmp_path / "base.yaml").write_text("name: base\ndeny_tools: [drop_*]\n")
    (tmp_path / "child.yaml").write_text("extends: base.yaml\nname: child\n")
    policy = Policy.load(str(tmp_path / "child.yaml"))
    assert policy.name == "child" and policy.document["deny_tools"] == ["drop_*"]
