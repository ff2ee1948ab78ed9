"""Secrets inside encoded values (``transforms/encoded.py``): a base64 run hiding a secret or a
``user:password`` is redacted whole, a secret in percent- or JSON-escaped text in place;
nested encodings are followed; JSON and config text held in a string are judged by their key
names; base64 of harmless text is not a secret; each distinct value is decoded once."""

from __future__ import annotations

import base64
import json
import urllib.parse

import pytest

from cloudg_nb.transforms import Redact, TransformContext
from cloudg_nb.transforms import encoded as encoded_module
from cloudg_nb.transforms.redact import Redactor

PW = "Tq7-vX2m!Lp9#Rw4"  # no vendor shape, no entropy a detector would see alone
TOKEN = "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _redact(value, **options):
    ctx = TransformContext()
    return Redact(**options)(value, ctx), ctx.report


def _found(text: str) -> list[tuple[str, str]]:
    scanner = Redactor().scanner
    return [(f.entity, text[f.start:f.end]) for f in scanner.scan(text)]


@pytest.mark.parametrize("encode", [
    lambda s: b64(s),
    lambda s: b64(s).rstrip("="),
    lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    lambda s: base64.urlsafe_b64encode(s.encode()).decode().rstrip("="),
], ids=["standard", "unpadded", "url_safe", "url_safe_unpadded"])
def test_a_base64_run_hiding_a_secret_is_found_whole(encode) -> None:
    run = encode(json.dumps({"db_password": PW, "tenant": "acme"}))
    assert _found(f"payload {run} from env") == [("encoded_password", run)]


def test_base64_of_user_and_password_is_credentials() -> None:
    run = b64(f"robot$ci:{PW}")
    assert _found(run) == [("encoded_credentials", run)]


@pytest.mark.parametrize("text", [
    "db.internal:5432", "environment:production", "12:30:45 on 2026-11-02",
    "arn:aws:iam::123456789012:role/Deployer", "https://app.acme.io/x",
    "Welcome to the orders platform.", json.dumps({"region": "eu-west-1", "replicas": 3}),
])
def test_base64_of_harmless_text_is_not_a_secret(text: str) -> None:
    assert _found(f"value {b64(text)}") == []


def test_a_dockerconfigjson_is_followed_into_its_auth_entry() -> None:
    auth = b64(f"deploy:{PW}")
    config = b64(json.dumps({"auths": {"ghcr.io": {"auth": auth}}}))
    assert _found(config) == [("encoded_credentials", config)]


def test_line_wrapped_base64_is_joined_before_decoding() -> None:
    encoded = b64("LOG_LEVEL=info\nNOTE=" + "x" * 80 + f"\nDB_PASSWORD={PW}\n")
    text = "\n".join(encoded[i:i + 76] for i in range(0, len(encoded), 76))
    out, _ = _redact({"blob": text})
    assert all(line not in out["blob"] for line in text.split("\n")[1:-1])


def test_encodings_are_followed_no_deeper_than_the_limit() -> None:
    text = f"DB_PASSWORD={PW}"
    for _ in range(encoded_module.MAX_DEPTH):
        text = b64(text)
    assert _found(text) == [("encoded_password_assignment", text)]
    assert _found(b64(text)) == []


def test_a_percent_encoded_secret_is_redacted_in_place() -> None:
    text = "GET /login?user=ops&password=" + urllib.parse.quote(PW, safe="") + "&next=%2F"
    out, _ = _redact({"evidence": text})
    assert out["evidence"] == ("GET /login?user=ops&password=[REDACTED:password_assignment]"
                               "&next=%2F")


def test_a_double_percent_encoded_secret_is_found() -> None:
    text = urllib.parse.quote(urllib.parse.quote(f"token={TOKEN}", safe=""), safe="")
    out, _ = _redact({"state": text})
    assert "kxwnQrS7RPeMOkIU" not in out["state"]


def test_json_escapes_are_decoded_before_scanning() -> None:
    text = '{"p\\u0061ssword": "' + PW + '", "user": "etl"}'
    out, _ = _redact({"raw": text})
    assert PW not in out["raw"] and '"user": "etl"' in out["raw"]


@pytest.mark.parametrize("key", ["cookie", "sas", "dsn", "client_key_data", "credentials"])
def test_json_text_in_a_string_is_judged_by_its_key_names(key: str) -> None:
    text = json.dumps({"service": "billing", key: PW})
    out, _ = _redact({"note": text})
    assert PW not in out["note"] and json.loads(out["note"])["service"] == "billing"


def test_json_text_keeps_secret_references_and_plain_values() -> None:
    ref = "arn:aws:secretsmanager:eu-west-1:111122223333:secret:prod/db-AbC123"
    text = json.dumps({"password": ref, "region": "eu-west-1"})
    out, _ = _redact({"note": text})
    assert out["note"] == text


def test_config_lines_are_judged_by_their_names() -> None:
    text = f"REGION=eu-west-1\nSESSION_COOKIE={PW}\nSAS={PW}x\n"
    out, _ = _redact({"dotenv": text})
    assert PW not in out["dotenv"] and "REGION=eu-west-1" in out["dotenv"]


@pytest.mark.parametrize("text", [
    "Owner: platform\nToken: see the vault entry\n",
    "DB_PASSWORD=${DB_PASSWORD}\nAPI_TOKEN={{ .Values.token }}\n",
    "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      key: password\n",
])
def test_config_prose_placeholders_and_references_stay(text: str) -> None:
    out, report = _redact({"notes": text})
    assert out["notes"] == text and not report.get("redacted")


def test_a_secret_manifest_text_loses_its_data_values() -> None:
    text = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: redis\ndata:\n"
            f"  primary: {b64(PW)}\n  replica: {b64('x' + PW)}\ntype: Opaque\n")
    out, _ = _redact({"manifest": text})
    assert b64(PW) not in out["manifest"] and b64("x" + PW) not in out["manifest"]
    assert "name: redis" in out["manifest"] and "type: Opaque" in out["manifest"]


def test_a_high_entropy_guess_on_base64_of_prose_is_dropped_but_not_on_a_password() -> None:
    prose = b64("Deployed by the platform team on the third of May")
    assert _found(prose) == []
    secret = b64("Xk3fmq7pWsbIvbZ7Z1sC0F9qK2hN8rT5")
    assert [text for _, text in _found(secret)] == [secret]


def test_each_distinct_run_is_decoded_once(monkeypatch) -> None:
    calls: list[str] = []
    real = encoded_module._base64_text

    def counting(run: str) -> str | None:
        calls.append(run)
        return real(run)

    monkeypatch.setattr(encoded_module, "_base64_text", counting)
    scanner = Redactor().scanner
    run = b64(json.dumps({"client_secret": PW}))
    for _ in range(3):
        scanner.scan_many([f"a {run}", f"b {run}", run])
    assert calls.count(run) == 1


def test_decoding_can_be_switched_off_by_the_redact_options() -> None:
    text = "next=%2Fhome%3Fpassword%3D" + urllib.parse.quote(PW, safe="")
    assert _redact({"url": text}, decode=False)[0] == {"url": text}
    assert PW not in urllib.parse.unquote(_redact({"url": text})[0]["url"])
