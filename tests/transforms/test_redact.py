"""Redaction over whole values: detectors in strings and keys, key-name rules (including
AWS-style Key/Value tag pairs), every strategy (redact, mask, hash, pseudonymize, generalize,
drop, keep), copy-on-write (the caller's value is never mutated; untouched parts are the same
objects) and the report counts per strategy and entity."""

from __future__ import annotations

import copy

import pytest

from cloudg_nb.transforms import Redact, Redactor, TransformContext, Vault

GH = "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"
AKIA = "AKIAHBRPOIG8F1CBFNO6"
PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"


def _run(value, vault=None, **options):
    step = Redact(**options)
    ctx = TransformContext(vault=vault)
    return step(value, ctx), ctx.report


@pytest.mark.parametrize("key", [
    "password", "DBPassword", "db_pass", "client_secret", "SecretAccessKey", "api-key",
    "x-api-key", "access_token", "user_data", "UserData", "connectionString", "Authorization",
    "private_key", "credentials", "session_token", "MasterUserPassword",
])
def test_key_names_that_mark_secrets_redact_the_whole_value(key: str) -> None:
    out, _ = _run({key: "plain-looking"})
    assert list(out.values()) != ["plain-looking"]


@pytest.mark.parametrize("key", [
    "password_last_used", "password_enabled", "secret_arn", "next_token", "NextToken",
    "token_count", "key", "access_key_id", "kms_key_id", "tokenizer",
])
def test_key_names_that_only_mention_secrets_keep_their_value(key: str) -> None:
    assert _run({key: "plain-looking"})[0] == {key: "plain-looking"}


def test_key_rule_redacts_every_scalar_of_a_nested_value_and_keeps_its_shape() -> None:
    out, report = _run({"credentials": {"user": "svc", "pin": 1234, "ok": True, "n": None}})
    assert out == {"credentials": {"user": "[REDACTED:credentials]",
                                   "pin": "[REDACTED:credentials]", "ok": True, "n": None}}
    assert report == {"redacted": {"credentials": 2}}


def test_aws_tag_pairs_are_judged_by_their_key() -> None:
    tags = [{"Key": "DB_PASSWORD", "Value": "hunter2"}, {"Key": "env", "Value": "prod"}]
    out, _ = _run({"Tags": tags})
    assert out["Tags"] == [{"Key": "DB_PASSWORD", "Value": "[REDACTED:password]"},
                           {"Key": "env", "Value": "prod"}]


def test_a_secret_used_as_a_key_is_replaced() -> None:
    out, report = _run({GH: "owner", "other": 1})
    assert out == {"[REDACTED:github_token]": "owner", "other": 1}
    assert report == {"redacted": {"github_token": 1}}


def test_two_secret_keys_do_not_collide() -> None:
    other = "ghp_uzren68K4TunPFz46PDjqipVJIqVLB5Lzxoi"
    out, _ = _run({GH: 1, other: 2})
    assert sorted(out.values()) == [1, 2] and len(out) == 2


def test_only_the_secret_part_of_a_string_is_replaced() -> None:
    out, _ = _run({"note": f"key {AKIA} was rotated"})
    assert out == {"note": "key [REDACTED:aws_access_key_id] was rotated"}


def test_mask_keeps_at_most_four_characters_at_each_end() -> None:
    out, report = _run({"note": AKIA}, strategies={"credential": "mask"})
    assert out == {"note": "AKIA************FNO6"}
    assert report == {"masked": {"aws_access_key_id": 1}}


def test_hash_is_keyed_and_stable() -> None:
    vault = Vault("k1")
    a, _ = _run({"n": AKIA}, vault, strategies={"credential": "hash"})
    b, _ = _run({"n": AKIA}, vault, strategies={"credential": "hash"})
    c, _ = _run({"n": AKIA}, Vault("k2"), strategies={"credential": "hash"})
    assert a == b != c and a["n"].startswith("[HASH:") and AKIA not in a["n"]


def test_pseudonymize_uses_the_vault() -> None:
    vault = Vault("k")
    out, report = _run({"ip": "10.1.2.3"}, vault, strategies={"network": "pseudonymize"})
    assert vault.reveal(out["ip"]) == "10.1.2.3"
    assert report == {"pseudonymized": {"ipv4_private": 1}}


def test_generalize_keeps_the_network_and_the_domain() -> None:
    out, _ = _run({"ip": "10.1.2.3", "who": "bob@corp.example.org"},
                  strategies={"network": "generalize", "pii": "generalize"})
    assert out == {"ip": "10.1.2.0/24", "who": "*@corp.example.org"}


def test_drop_removes_a_value_that_is_only_the_secret() -> None:
    out, report = _run({"pem": PEM, "list": [PEM, "keep"], "n": 1},
                       strategies={"private_key": "drop"})
    assert out == {"list": ["keep"], "n": 1}
    assert report == {"dropped": {"private_key": 2}}


def test_drop_inside_a_longer_string_removes_just_the_secret() -> None:
    out, _ = _run({"cfg": f"key={PEM};region=eu"}, strategies={"private_key": "drop"})
    assert out == {"cfg": "key=;region=eu"}


def test_keep_leaves_a_kind_untouched() -> None:
    out, report = _run({"note": AKIA}, strategies={"credential": "keep"})
    assert out == {"note": AKIA} and report == {}


def test_identifiers_are_kept_unless_a_strategy_says_otherwise() -> None:
    value = {"arn": "arn:aws:iam::123456789012:role/x", "ip": "10.0.0.1"}
    assert _run(value)[0] == value


def test_the_callers_value_is_never_mutated() -> None:
    value = {"a": [{"token": "x1"}, {"note": AKIA}], "b": {GH: 1}}
    before = copy.deepcopy(value)
    _run(value)
    assert value == before


def test_untouched_subtrees_are_the_same_objects() -> None:
    clean = [{"name": f"web-{i}", "ip": "10.0.0.1"} for i in range(40)]
    value = {"clean": clean, "dirty": {"note": AKIA}}
    out, _ = _run(value)
    assert out is not value and out["clean"] is clean


def test_a_list_shared_twice_is_transformed_in_both_places() -> None:
    shared = [f"x{i}" for i in range(20)] + [AKIA]
    out, report = _run({"a": shared, "b": shared})
    assert out["a"][-1] == out["b"][-1] == "[REDACTED:aws_access_key_id]"
    assert report == {"redacted": {"aws_access_key_id": 2}}


def test_tuples_and_non_string_keys_are_walked() -> None:
    out, _ = _run({1: (AKIA, 2)})
    assert out == {1: ["[REDACTED:aws_access_key_id]", 2]}


def test_strategies_can_name_an_entity_a_detector_or_a_kind() -> None:
    red = Redactor(strategies={"ipv4_public": "redact", "network": "keep"})
    out, _ = _run({"a": "10.0.0.1", "b": "54.1.2.3"}, redactor=red)
    assert out == {"a": "10.0.0.1", "b": "[REDACTED:ipv4_public]"}


def test_custom_detector_with_its_own_strategy() -> None:
    from cloudg_nb.transforms.detectors import custom_detector

    det = custom_detector({"name": "employee_id", "kind": "pii", "pattern": r"EMP\d{5}",
                           "strategy": "hash"}, "d")
    out, report = _run({"who": "EMP12345"}, vault=Vault("k"), redactor=Redactor(detectors=[det]))
    assert out["who"].startswith("[HASH:") and report == {"hashed": {"employee_id": 1}}


def test_extra_key_rules_from_options() -> None:
    out, _ = _run({"pin_code": "1234"}, extra_keys={"pin_*": "pin"})
    assert out == {"pin_code": "[REDACTED:pin]"}


@pytest.mark.parametrize("marker", [{"kind": "Secret"}, {"type": "Opaque"},
                                    {"type": "kubernetes.io/basic-auth"}])
def test_a_kubernetes_secrets_data_values_are_redacted_whatever_their_key(marker) -> None:
    secret = {**marker, "metadata": {"name": "db"},
              "data": {"primary": "VHE3LXZYMm0hTHA5", "host": "ZGIuaW50ZXJuYWw="},
              "stringData": {"conn": "Tq7-vX2m!Lp9"}}
    out, report = _run({"manifest": secret})
    assert out["manifest"]["data"] == {"primary": "[REDACTED:secret_data]",
                                       "host": "[REDACTED:secret_data]"}
    assert out["manifest"]["stringData"] == {"conn": "[REDACTED:secret_data]"}
    assert out["manifest"]["metadata"] == {"name": "db"}
    assert report["redacted"] == {"secret_data": 3}


def test_a_config_maps_data_is_kept() -> None:
    config = {"kind": "ConfigMap", "data": {"LOG_LEVEL": "info", "REGION": "eu-west-1"}}
    assert _run({"cm": config})[0] == {"cm": config}
