"""Policy loading (profile name, file, dict, inline JSON, env var) and the access surface the
layer calls: is_allowed, check_call, record_hidden, record_rejection."""

from __future__ import annotations

import pytest

from cloudg_nb import AccessDeniedError, Capability, Principal, Sensitivity, ToolSpec
from cloudg_nb.policy import Policy, PolicyError


def _tool(name: str = "t", **kw) -> ToolSpec:
    def handler(ctx) -> dict:
        return {}

    return ToolSpec(name=name, handler=handler, **kw)


def test_default_is_standard_profile(monkeypatch) -> None:
    monkeypatch.delenv("CLOUDG_MCP_POLICY", raising=False)
    assert Policy.load().name == "standard"


def test_env_var_selects_the_default_policy(monkeypatch) -> None:
    monkeypatch.setenv("CLOUDG_MCP_POLICY", "open")
    assert Policy.load().name == "open"


def test_policy_instance_is_returned_as_is() -> None:
    policy = Policy.load("open")
    assert Policy.load(policy) is policy


def test_loads_yaml_file_dict_and_inline_json(tmp_path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("name: filed\ndeny_tools: ['x*']\n")
    assert Policy.load(str(path)).name == "filed"
    assert Policy.load({"name": "dicted"}).name == "dicted"
    assert Policy.load('{"name": "inline"}').name == "inline"


def test_unknown_key_is_an_error_naming_the_key() -> None:
    with pytest.raises(PolicyError, match="unknown key 'deny_tool'"):
        Policy.load({"deny_tool": ["x"]})


def test_unknown_profile_lists_the_builtin_ones() -> None:
    with pytest.raises(PolicyError, match="open"):
        Policy.load("no-such-profile")


def test_extends_cycle_is_an_error_naming_the_chain(tmp_path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(f"extends: {b}\n")
    b.write_text(f"extends: {a}\n")
    with pytest.raises(PolicyError, match="cycle"):
        Policy.load(str(a))


def test_extends_unites_deny_lists_and_child_scalars_win(tmp_path) -> None:
    parent = tmp_path / "parent.yaml"
    parent.write_text("name: parent\ndeny_tools: [a]\nhide_denied: false\n")
    child = Policy.load({"extends": str(parent), "deny_tools": ["b"], "hide_denied": True})
    assert child.document["deny_tools"] == ["a", "b"]
    assert child.hide_denied is True


def test_malformed_glob_is_an_error() -> None:
    with pytest.raises(PolicyError, match="malformed glob"):
        Policy.load({"deny_tools": ["[abc"]})


def test_standard_denies_reveal_capability() -> None:
    spec = _tool("reveal_token", capabilities={Capability.REVEAL})
    with pytest.raises(AccessDeniedError) as err:
        Policy.load("standard").check_call(spec, Principal.local(), {})
    assert err.value.code == -31001


def test_denied_tool_is_listed_unless_hide_denied() -> None:
    spec = _tool("secret_x")
    assert Policy.load({"deny_tools": ["secret_*"]}).is_allowed(spec, Principal.local())
    hidden = Policy.load({"deny_tools": ["secret_*"], "hide_denied": True})
    assert not hidden.is_allowed(spec, Principal.local())


def test_sensitivity_ceiling_denies_more_sensitive_specs() -> None:
    policy = Policy.load({"max_sensitivity": "internal"})
    assert policy.decide(_tool(sensitivity=Sensitivity.PUBLIC), Principal.local()) is None
    assert policy.decide(_tool(sensitivity=Sensitivity.RESTRICTED), Principal.local())


def test_denials_and_hidden_names_are_audited_without_values() -> None:
    policy = Policy.load({"deny_tools": ["t"]})
    with pytest.raises(AccessDeniedError):
        policy.check_call(_tool(), Principal.local(), {"password": "hunter2-value"})
    policy.record_hidden("tool", "ghost", Principal.local())
    entries = policy.audit_log.entries()
    assert [e["decision"] for e in entries] == ["denied", "not_found"]
    assert "hunter2-value" not in repr(entries)
    assert len(entries[0]["arguments"]["password"]) == 12
