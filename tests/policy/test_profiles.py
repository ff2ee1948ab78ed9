"""The built-in profiles (YAML data files in the package): each loads; ``open`` transforms
nothing; ``standard`` (the default) redacts secrets and guards inputs; ``strict``
pseudonymises and restricts; ``read_only`` and ``audit`` deny writes; ``analyst-team`` gives
each role its own access and view; ``assistant`` (what an assistant with its own credential
gets) is ``standard`` without reveal, file writes, cloud access or code, whatever its roles."""

from __future__ import annotations

import pytest

from cloudg_nb import Capability, Principal, Sensitivity, ToolSpec
from cloudg_nb.policy import Policy
from cloudg_nb.policy.document import profile_names
from cloudg_nb.transforms import TransformContext

PROFILES = ["analyst-team", "assistant", "assistant-compact", "audit", "open", "read_only",
            "standard", "strict"]


def _tool(name: str = "t", **kw) -> ToolSpec:
    return ToolSpec(name=name, handler=lambda ctx: {}, **kw)


def _out(policy: Policy, value, principal: Principal | None = None):
    spec = _tool()
    who = principal or Principal.local()
    ctx = TransformContext(vault=policy.vault, spec=spec, principal=who)
    return policy.output_pipeline(spec, who).apply(value, ctx)


def test_builtin_profiles_are_shipped_as_yaml_files() -> None:
    assert profile_names() == PROFILES


@pytest.mark.parametrize("name", PROFILES)
def test_every_builtin_profile_loads_under_its_own_name(name: str) -> None:
    assert Policy.load(name).name == name


def test_open_has_no_transforms_and_an_empty_falsy_pipeline() -> None:
    policy = Policy.load("open")
    assert not policy.output_pipeline(_tool(), Principal.local())
    assert not policy.input_pipeline(_tool(), Principal.local())


def test_standard_redacts_secrets_but_keeps_identifiers() -> None:
    out = _out(Policy.load("standard"), {
        "token": "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ", "ip": "10.0.0.1",
        "arn": "arn:aws:s3:::bucket-a",
    })
    assert out == {"token": "[REDACTED:token]", "ip": "10.0.0.1", "arn": "arn:aws:s3:::bucket-a"}


def test_standard_runs_the_four_output_steps_and_guards_inputs() -> None:
    policy = Policy.load("standard")
    assert [s.name for s in policy.output_pipeline(_tool(), Principal.local())] == [
        "sanitize+redact", "project", "annotate",
    ]
    assert [s.name for s in policy.input_pipeline(_tool(), Principal.local())] == ["guard_secrets"]


def test_strict_pseudonymises_identifiers_network_and_pii() -> None:
    out = _out(Policy.load("strict"), {"ip": "10.0.0.1", "mail": "bob@corp.example.org"})
    assert out["ip"] != "10.0.0.1" and out["mail"] != "bob@corp.example.org"


def test_strict_denies_cloud_access_exec_write_fs_reveal_and_restricted() -> None:
    policy = Policy.load("strict")
    for cap in (Capability.CLOUD_ACCESS, Capability.EXEC, Capability.WRITE_FS,
                Capability.REVEAL):
        assert policy.decide(_tool(capabilities={cap}), Principal.local()), cap
    assert policy.decide(_tool(sensitivity=Sensitivity.RESTRICTED), Principal.local())
    assert policy.decide(_tool(), Principal.local()) is None


def test_read_only_denies_file_writes_and_exec() -> None:
    policy = Policy.load("read_only")
    assert policy.decide(_tool(capabilities={Capability.WRITE_FS}), Principal.local())
    assert policy.decide(_tool(capabilities={Capability.EXEC}), Principal.local())
    assert policy.decide(_tool(capabilities={Capability.WRITE_STATE}), Principal.local()) is None


def test_audit_profile_records_allowed_calls() -> None:
    policy = Policy.load("audit")
    policy.check_call(_tool("lookup"), Principal.local(), {"q": "x"})
    assert [e["decision"] for e in policy.audit_log.entries()] == ["allowed"]


def test_standard_does_not_record_allowed_calls() -> None:
    policy = Policy.load("standard")
    policy.check_call(_tool("lookup"), Principal.local(), {"q": "x"})
    assert policy.audit_log.entries() == []


def test_analyst_team_analyst_has_no_export_and_a_confidential_ceiling() -> None:
    policy = Policy.load("analyst-team")
    analyst = Principal("a", frozenset({"analyst"}))
    assert policy.decide(_tool(category="export"), analyst)
    assert policy.decide(_tool(capabilities={Capability.WRITE_FS}), analyst)
    assert policy.decide(_tool(sensitivity=Sensitivity.RESTRICTED), analyst)
    assert policy.decide(_tool(category="query"), analyst) is None


def test_analyst_team_lead_may_reveal_and_analyst_may_not() -> None:
    policy = Policy.load("analyst-team")
    reveal = _tool("reveal_token", capabilities={Capability.REVEAL})
    assert policy.decide(reveal, Principal("l", frozenset({"lead"}))) is None
    assert policy.decide(reveal, Principal("a", frozenset({"analyst"})))
    assert policy.decide(reveal, Principal("a", frozenset({"analyst", "lead"})))


def test_analyst_team_pseudonymises_for_analysts_but_not_for_admins() -> None:
    policy = Policy.load("analyst-team")
    value = {"ip": "10.9.8.7"}
    assert _out(policy, value, Principal("a", frozenset({"analyst"})))["ip"] != "10.9.8.7"
    assert _out(policy, value, Principal("x", frozenset({"admin"})))["ip"] == "10.9.8.7"


def test_analyst_team_admin_sees_restricted_data() -> None:
    policy = Policy.load("analyst-team")
    restricted = _tool(sensitivity=Sensitivity.RESTRICTED)
    assert policy.decide(restricted, Principal("x", frozenset({"admin"}))) is None


@pytest.mark.parametrize("roles", [{"assistant"}, {"assistant", "admin"}])
def test_assistant_profile_denies_reveal_and_file_writes_whatever_the_roles(roles) -> None:
    policy = Policy.load("assistant")
    who = Principal("assistant:x", frozenset(roles))
    reveal = _tool("reveal_token", capabilities={Capability.READ_STATE, Capability.REVEAL})
    export = _tool("export_dataset", capabilities={Capability.READ_STATE, Capability.WRITE_FS})
    assert policy.decide(reveal, who) is not None
    assert policy.decide(export, who) is not None
    assert policy.decide(_tool("find_assets"), who) is None


def test_assistant_profile_redacts_secrets_as_standard_does() -> None:
    value = {"connection": "postgres://app:Sup3rS3cretPassw0rd@db.internal:5432/app"}
    assert _out(Policy.load("assistant"), value) == _out(Policy.load("standard"), value)
    assert "Sup3rS3cretPassw0rd" not in str(_out(Policy.load("assistant"), value))
