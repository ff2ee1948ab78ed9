"""Secrets the ``standard`` policy must redact on the way out of the layer whatever shape
carries them: name/value pairs (lists of pairs, TagKey/TagValue, ParameterKey/ParameterValue,
``{name, value, …}`` records with extra keys), key names with trailing digits or encoding
words (``admin_pw``, ``PASSWORD1``, ``client_secret_value``, ``ssh_private_key_pem``), and free
text the detectors must catch (fine-grained GitHub tokens, lower-case PEM headers,
``--password``/``-p`` command lines, ``user:pass@host``, escaped JSON, ``SecretAccessKey=``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer, Registry

PW = "Summer2024prod"


async def _out(value: Any) -> str:
    reg = Registry()

    @reg.tool
    def t(ctx) -> dict:
        return value

    layer = CloudGMCPLayer(registry=reg, policy="standard")
    result = await layer.call_tool("t")
    return json.dumps(result.structured) + result.text


@pytest.mark.parametrize("value", [
    {"tags": [["db_password", PW]]},
    {"tags": [("db_password", PW)]},
    {"Tags": [{"TagKey": "db_password", "TagValue": PW}]},
    {"Parameters": [{"ParameterKey": "MasterUserPassword", "ParameterValue": PW}]},
    {"environment": [{"name": "DB_PASSWORD", "value": PW, "type": "plain", "source": "task",
                      "x": 1}]},
], ids=["list_pair", "tuple_pair", "tagkey_tagvalue", "cfn_parameter", "record_with_extras"])
async def test_standard_redacts_secret_values_named_by_their_pair(value: Any) -> None:
    assert PW not in await _out(value)


@pytest.mark.parametrize("key", [
    "admin_pw", "PASSWORD1", "client_secret_value", "ssh_private_key_pem", "sas", "webhook_url",
])
async def test_standard_redacts_values_under_secret_key_variants(key: str) -> None:
    assert PW not in await _out({key: PW})


async def test_standard_keeps_plain_two_item_lists_and_name_value_records() -> None:
    value = {"regions": ["us-east-1", "eu-west-1"], "steps": ["guard_secrets", "depseudonymize"],
             "settings": [{"name": "timeout", "value": "30", "type": "int", "a": 1, "b": 2}]}
    out = await _out(value)
    assert "us-east-1" in out and "eu-west-1" in out and '"30"' in out
    assert "guard_secrets" in out and "depseudonymize" in out


@pytest.mark.parametrize("text", [
    "token github_pat_11ABCDEFG0abcdefghijkl_MNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789AB",
    "-----begin rsa private key-----\nMIIEowIBAAKCAQEA\n-----end rsa private key-----",
    f"mysql -h db -u admin --password {PW}",
    f"mysql -h db -u admin --password={PW}",
    f"mysql -uadmin -p{PW}",
    f"admin:{PW}@db.internal:5432",
    '{"SecretString": "{\\"username\\": \\"admin\\", \\"password\\": \\"' + PW + '\\"}"}',
    f"SecretAccessKey={PW}abcdefghijKLMNOPQRSTUVWXYZ",
], ids=["github_fine_grained", "pem_lower", "cli_password", "cli_password_eq", "cli_p",
        "userinfo_no_scheme", "escaped_json", "secret_access_key"])
async def test_standard_redacts_secrets_in_free_text(text: str) -> None:
    out = await _out({"description": text})
    secret = text.split("github_pat_")[1][:20] if "github_pat_" in text else (
        "MIIEowIBAAKCAQEA" if "begin" in text else PW)
    assert secret not in out


async def test_a_secret_in_a_key_whose_name_also_marks_its_value_is_redacted_too() -> None:
    from cloudg_nb import CloudGMCPLayer, Registry

    reg = Registry()

    @reg.tool
    def keyed(ctx) -> dict:
        return {"x": {"note password=Zq8-Planted-DbPass-41": "v"}}

    result = await CloudGMCPLayer(registry=reg, policy="standard").call_tool("keyed")
    assert "Zq8-Planted-DbPass-41" not in repr(result.to_wire())
