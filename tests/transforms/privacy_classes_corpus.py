"""Attacks on the three privacy classes of issue 36 (finding 9): secrets inside encoded
values, in vendor key formats, and holding punctuation — each in many encodings and places.

Written from the formats' public descriptions (base64 / percent / JSON encodings, Kubernetes
Secret and ``.dockerconfigjson`` layouts, vendor token formats, connection-string and URL
syntax), not from our detectors. Token bodies come from a seeded generator, so no value is a
documentation example.

``PLANTS`` maps a label to a ``Plant``: its class (``encoded``, ``vendor``, ``punctuation``),
the carrier (where it sits in an estate record: ``("tag", key)``, ``("meta", key)``,
``("finding", field)``, ``("name",)`` for an asset name, ``("tag_key",)`` for a tag *key*),
the planted value (a string, or an object for metadata) and the secrets it hides (what must
never be readable, in clear or decodable). ``SECRETS`` flattens them (``label#n`` → secret);
``record(plant)`` is a small estate record holding one plant; ``write_estate(folder)`` writes
a ``findings.json`` holding all of them for ``load_dataset``.
"""

from __future__ import annotations

import base64
import gzip
import json
import random
import re
import string
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_R = random.Random(3609)
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
#: Password characters with the punctuation that made redactions stop early.
PUNCT = "@:/+=!#$%^*,;&'|~?"


def tok(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


#: What a connection string or query string reads as the start of a new setting.
_NEW_SETTING = re.compile(r"[,;&][A-Za-z_][\w.-]{0,40}\s*=")


def pw(n: int = 16, punct: str = PUNCT) -> str:
    """A password mixing letters, digits and ``punct`` (one in four characters, spread).

    Never ``;name=`` / ``&name=`` inside: in connection and query strings that starts a new
    setting (a password holding it must be quoted there), so no reader could tell."""
    while True:
        body = list(tok(ALNUM, n))
        for i in range(3, n, 4):
            body[i] = _R.choice(punct)
        body[0] = _R.choice(string.ascii_letters)
        out = "".join(body)
        if _NEW_SETTING.search(out) is None:
            return out


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64url(text: str, pad: bool = False) -> str:
    out = base64.urlsafe_b64encode(text.encode()).decode()
    return out if pad else out.rstrip("=")


def wrapped(text: str, width: int = 76) -> str:
    enc = b64(text)
    return "\n".join(enc[i:i + width] for i in range(0, len(enc), width))


def dockerconfig(registry: str, user: str, password: str, *, url_safe: bool = False) -> str:
    auth = b64url(f"{user}:{password}", pad=True) if url_safe else b64(f"{user}:{password}")
    return json.dumps({"auths": {registry: {"auth": auth}}})


@dataclass(frozen=True)
class Plant:
    klass: str
    carrier: tuple[str, ...]
    value: Any
    secrets: tuple[str, ...]


def _p(klass: str, carrier: tuple[str, ...], value: Any, *secrets: str) -> Plant:
    return Plant(klass, carrier, value, secrets)


def _pem_body() -> str:
    return "\n".join(tok(ALNUM + "+/", 64) for _ in range(4))


_PEM = _pem_body()
_SA_KEY = json.dumps({
    "type": "service_account", "project_id": "acme-data-prod",
    "private_key_id": tok(HEX, 40),
    "private_key": f"-----BEGIN PRIVATE KEY-----\n{_PEM}\n-----END PRIVATE KEY-----\n",
    "client_email": "etl@acme-data-prod.iam.gserviceaccount.com",
})
_SA_KEY_ID = json.loads(_SA_KEY)["private_key_id"]

# secrets reused below (named so the plant can say what it hides)
_K8S_PW, _DOCKER_PW, _DOCKER_PW2, _DOCKER_PW3 = pw(14, "-_!"), pw(13, "-_"), pw(15, "-!"), \
    pw(14, "-_")
_ENV_PW, _CONN_PW, _YAML_PW, _YAML_PW2 = pw(16, "!#-"), pw(15, "-_"), pw(13, "-_"), \
    pw(14, "!-")
_Q_PW = pw(18)
_MG_LEGACY, _MG_HEX = "key-" + tok(LOWER, 32), "key-" + tok(HEX, 32)

PLANTS: dict[str, Plant] = {
    # -- encoded values ------------------------------------------------------------------
    "k8s_secret_object": _p(
        "encoded", ("meta", "manifest"),
        {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
         "metadata": {"name": "orders-db", "namespace": "prod"},
         "data": {"username": b64("orders_app"), "primary": b64(_K8S_PW),
                  "host": b64("orders-db.prod.svc")}},
        _K8S_PW),
    "k8s_dockerconfigjson_object": _p(
        "encoded", ("meta", "pull_secret"),
        {"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/dockerconfigjson",
         "data": {".dockerconfigjson": b64(dockerconfig("harbor.acme.io", "robot$ci",
                                                        _DOCKER_PW))}},
        _DOCKER_PW),
    "dockerconfigjson_in_tag": _p(
        "encoded", ("tag", "pull"), b64(dockerconfig("ghcr.io", "deploy", _DOCKER_PW2)),
        _DOCKER_PW2),
    "dockerconfig_url_safe_auth": _p(
        "encoded", ("meta", "registry_auth"),
        b64url(dockerconfig("registry.gitlab.com", "gitlab+deploy-token-7", _DOCKER_PW3,
                            url_safe=True)),
        _DOCKER_PW3),
    "base64_json_in_prose": (lambda s: _p(
        "encoded", ("finding", "description"),
        f"Decoded the pod env payload {b64(json.dumps({'client_secret': s, 'tenant': 'acme'}))}"
        " from the init container.", s))(tok(ALNUM, 34)),
    "base64url_unpadded_connection_string": _p(
        "encoded", ("tag", "dsn"),
        b64url(f"mongodb+srv://svc_reporting:{_CONN_PW}@cluster0.ab1cd.mongodb.net/app"),
        _CONN_PW),
    "double_base64_env_file": _p(
        "encoded", ("meta", "env_blob"),
        b64(b64(f"LOG_LEVEL=info\nDB_PASSWORD={_ENV_PW}\nPORT=8080\n")), _ENV_PW),
    "wrapped_base64_service_account": _p(
        "encoded", ("meta", "sa_key_b64"), wrapped(_SA_KEY), _PEM.split("\n")[1], _SA_KEY_ID),
    "percent_encoded_query": (lambda s: _p(
        "encoded", ("finding", "evidence"),
        "GET /login?user=ops&password=" + urllib.parse.quote(s, safe="") + "&next=%2Fhome",
        s))(pw(18)),
    "percent_encoded_json": (lambda s: _p(
        "encoded", ("tag", "cfg"), urllib.parse.quote(json.dumps({"api_key": s, "v": 2})),
        s))(tok(ALNUM, 32)),
    "double_percent_encoded": (lambda s: _p(
        "encoded", ("meta", "callback"),
        "https://app.acme.io/cb?state=" + urllib.parse.quote(urllib.parse.quote(
            f"token={s}&r=1", safe=""), safe=""), s))(tok(ALNUM, 30)),
    "json_text_in_json_text": (lambda s: _p(
        "encoded", ("finding", "evidence"),
        json.dumps({"SecretString": json.dumps({"username": "admin", "pwd_value": s})}), s))(
        pw(16, "-_!")),
    "unicode_escaped_key": (lambda s: _p(
        "encoded", ("meta", "raw_json"), '{"p\\u0061ssword": "' + s + '", "user": "etl"}',
        s))(pw(15, "-_")),
    "json_text_cookie": (lambda s: _p(
        "encoded", ("tag", "session"), json.dumps({"service": "billing", "cookie": s}),
        s))(tok(ALNUM, 28)),
    "json_text_credentials_object": (lambda s: _p(
        "encoded", ("finding", "evidence"),
        json.dumps({"credentials": {"user": "svc", "key": s}, "region": "eu-west-1"}), s))(
        tok(ALNUM, 30)),
    "yaml_secret_manifest_text": _p(
        "encoded", ("meta", "manifest_yaml"),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: redis\ntype: Opaque\ndata:\n"
        f"  primary: {b64(_YAML_PW)}\n  replica-url: {b64('redis://:' + _YAML_PW2 + '@redis:6379')}"
        "\n", _YAML_PW, _YAML_PW2),
    "data_uri": (lambda s: _p(
        "encoded", ("tag", "bootstrap"),
        "data:application/json;base64," + b64(json.dumps({"token": s, "ttl": 3600})), s))(
        tok(ALNUM, 36)),
    "env_text_key_rule_names": (lambda s, t: _p(
        "encoded", ("meta", "dotenv"), f"SESSION_COOKIE={s}\nSAS={t}\nREGION=eu-west-1\n",
        s, t))(tok(ALNUM, 26), tok(ALNUM, 24)),
    "basic_pair_alone": (lambda s: _p(
        "encoded", ("tag", "ci"), b64(f"deploy:{s}"), s))(pw(14, "-_!")),
    "basic_pair_after_name": (lambda s: _p(
        "encoded", ("finding", "remediation"), f"Remove auth={b64('svc-backup:' + s)} from "
        "the job definition.", s))(pw(13, "-_")),
    "dockerconfig_structured_short_auth": (lambda s: _p(
        "encoded", ("meta", "docker_config"), {"auths": {"r.acme.io": {"auth": b64("ci:" + s)}}},
        s))(pw(12, "-_")),
    "basic_pair_short": (lambda s: _p("encoded", ("tag", "b"), b64("u:" + s), s))(
        pw(12, "-_!")),
    "base64_json_no_dots": (lambda s: _p(
        "encoded", ("tag", "state"), b64url(json.dumps({"password": s, "n": 1})), s))(
        pw(14, "-_!")),
    "gzip_base64_user_script": (lambda s: _p(
        "encoded", ("meta", "launch_template"),
        base64.b64encode(gzip.compress(
            f"#!/bin/bash\nexport APP_ENV=prod\nexport DB_PASSWORD='{s}'\n".encode())).decode(),
        s))(pw(16, "-_!")),
    "powershell_encoded_command": (lambda s: _p(
        "encoded", ("finding", "evidence"),
        "powershell.exe -NoProfile -EncodedCommand " + base64.b64encode(
            f"$p = ConvertTo-SecureString '{s}' -AsPlainText -Force".encode("utf-16-le")
        ).decode(), s))(pw(14, "!@#")),
    "xml_config_text": (lambda s: _p(
        "encoded", ("meta", "web_config"),
        '<configuration><appSettings><add key="DbPassword" value="' + s + '" />'
        "</appSettings><db><password>" + s + "</password></db></configuration>", s))(
        pw(14, ";!@#")),
    "netrc_text": (lambda s: _p(
        "encoded", ("meta", "netrc"),
        f"machine api.heroku.com\n  login ops@acme.io\n  password {s}\n", s))(
        tok(ALNUM, 20)),
    # -- vendor formats ------------------------------------------------------------------
    "mailgun_legacy_docs_style": _p("vendor", ("tag", "mg"), _MG_LEGACY, _MG_LEGACY[4:]),
    "mailgun_legacy_hex_env": _p("vendor", ("finding", "evidence"),
                                 f"MAILGUN_KEY={_MG_HEX} found in .env", _MG_HEX[4:]),
    "mailgun_legacy_in_url": _p(
        "vendor", ("finding", "remediation"),
        f"Rotate the key used in https://api:{_MG_LEGACY}@api.mailgun.net/v3/acme.io",
        _MG_LEGACY[4:]),
    "mailgun_current": (lambda s: _p("vendor", ("tag", "mg2"), s, s))(
        f"{tok(HEX, 32)}-{tok(HEX, 8)}-{tok(HEX, 8)}"),
    "mailgun_key_as_tag_key": (lambda s: _p("vendor", ("tag_key",), s, s[4:]))(
        "key-" + tok(LOWER, 32)),
    "mailchimp": (lambda s: _p("vendor", ("tag", "newsletter"), s, s))(
        f"{tok(HEX, 32)}-us21"),
    "twilio_api_key": (lambda s: _p("vendor", ("finding", "description"),
                                    f"Twilio key {s} is in the lambda env.", s))(
        "SK" + tok(HEX, 32)),
    "sendgrid_in_json": (lambda s: _p("vendor", ("meta", "mail"), json.dumps({"sg": s}), s))(
        f"SG.{tok(ALNUM + '-_', 22)}.{tok(ALNUM + '-_', 43)}"),
    "stripe_live": (lambda s: _p("vendor", ("finding", "title"),
                                 f"Stripe key {s} in repository", s))(
        "sk_live_" + tok(ALNUM, 99)),
    "stripe_webhook_secret": (lambda s: _p("vendor", ("tag", "hooks"), s, s))(
        "whsec_" + tok(ALNUM, 32)),
    "slack_bot": (lambda s: _p("vendor", ("tag", "alerts"), s, s))(
        f"xoxb-{tok(string.digits, 12)}-{tok(string.digits, 13)}-{tok(ALNUM, 24)}"),
    "slack_config_token": (lambda s: _p("vendor", ("meta", "slack_cfg"), f"token: {s}", s))(
        f"xoxe.xoxp-1-{tok(ALNUM, 160)}"),
    "slack_workflow_webhook": (lambda s: _p(
        "vendor", ("tag", "notify"), "https://hooks.slack.com/workflows/" + s, s))(
        f"T{tok(ALNUM, 10)}/A{tok(ALNUM, 10)}/{tok(string.digits, 18)}/{tok(ALNUM, 24)}"),
    "github_app_user_token": (lambda s: _p("vendor", ("tag", "gh"), s, s))(
        "ghu_" + tok(ALNUM, 36)),
    "github_fine_grained_in_name": (lambda s: _p("vendor", ("name",), f"runner {s}", s))(
        "github_pat_" + tok(ALNUM, 22) + "_" + tok(ALNUM, 59)),
    "gitlab_trigger_token_lowercase": (lambda s: _p("vendor", ("tag", "gl"), s, s))(
        "glptt-" + tok(HEX, 40)),
    "gitlab_runner_registration": (lambda s: _p(
        "vendor", ("finding", "evidence"),
        f"gitlab-runner register --registration-token {s}", s))("GR1348941" + tok(ALNUM, 20)),
    "npm_in_npmrc": (lambda s: _p("vendor", ("meta", "npmrc"),
                                  f"//registry.npmjs.org/:_authToken={s}\n", s))(
        "npm_" + tok(ALNUM, 36)),
    "datadog_by_name_env": (lambda s: _p("vendor", ("meta", "dotenv_dd"),
                                         f"DD_SITE=datadoghq.eu\nDD_API_KEY={s}\n", s))(
        tok(HEX, 32)),
    "datadog_app_key_yaml": (lambda s: _p("vendor", ("finding", "evidence"),
                                          f"datadog.yaml:\n  app_key: {s}\n", s))(
        tok(HEX, 40)),
    "heroku_new": (lambda s: _p("vendor", ("tag", "heroku"), s, s))(
        "HRKU-AA" + tok(ALNUM + "_-", 58)),
    "heroku_legacy_uuid_by_name": (lambda s: _p(
        "vendor", ("finding", "evidence"), f"export HEROKU_API_KEY={s}", s))(
        f"{tok(HEX, 8)}-{tok(HEX, 4)}-{tok(HEX, 4)}-{tok(HEX, 4)}-{tok(HEX, 12)}"),
    "shopify_lowercase": (lambda s: _p("vendor", ("tag", "shop"), s, s))(
        "shpss_" + tok(HEX, 32)),
    "square_oauth_secret": (lambda s: _p("vendor", ("meta", "square"), f"secret {s}", s))(
        "sq0csp-" + tok(ALNUM + "-_", 43)),
    "azure_storage_connection": (lambda s: _p(
        "vendor", ("meta", "storage"),
        f"DefaultEndpointsProtocol=https;AccountName=stprod;AccountKey={s};"
        "EndpointSuffix=core.windows.net", s))(tok(ALNUM + "+/", 86) + "=="),
    "azure_ad_client_secret": (lambda s: _p("vendor", ("tag", "spn"), s, s))(
        f"{tok(ALNUM, 3)}8Q~{tok(ALNUM + '_~.-', 34)}"),
    "azure_function_key": (lambda s: _p(
        "vendor", ("finding", "remediation"),
        f"Do not share https://fn-orders.azurewebsites.net/api/export?code={s}", s))(
        tok(ALNUM + "_-", 54) + "=="),
    "gcp_service_account_json": _p("vendor", ("finding", "evidence"), _SA_KEY,
                                   _PEM.split("\n")[2], _SA_KEY_ID),
    "google_oauth_client_secret": (lambda s: _p("vendor", ("tag", "oauth"), s, s))(
        "GOCSPX-" + tok(ALNUM + "-_", 28)),
    "google_oauth_access_token": (lambda s: _p("vendor", ("finding", "evidence"),
                                               f"cached credential {s}", s))(
        "ya29." + tok(ALNUM + "-_", 120)),
    "atlassian_token": (lambda s: _p("vendor", ("tag", "jira"), s, s))(
        "ATATT3x" + tok(ALNUM + "_-=", 180)),
    "okta_ssws_header": (lambda s: _p("vendor", ("finding", "evidence"),
                                      f"Authorization: SSWS {s}", s))("00" + tok(ALNUM, 40)),
    "openai_legacy": (lambda s: _p("vendor", ("tag", "llm"), s, s))(
        f"sk-{tok(ALNUM, 20)}T3BlbkFJ{tok(ALNUM, 20)}"),
    "anthropic_in_env_list": (lambda s: _p("vendor", ("meta", "env"),
                                           [{"name": "LLM", "value": s}], s))(
        "sk-ant-api03-" + tok(ALNUM + "-_", 93) + "AA"),
    "vault_legacy_service_token": (lambda s: _p("vendor", ("tag", "vault"), s, s))(
        "s." + tok(string.ascii_lowercase, 8) + tok(string.ascii_uppercase, 8)
        + tok(string.digits, 8)),
    "docker_hub_pat": (lambda s: _p("vendor", ("finding", "evidence"),
                                    f"docker login -u acme -p {s}", s))(
        "dckr_pat_" + tok(ALNUM + "_-", 27)),
    "tailscale_auth_key": (lambda s: _p("vendor", ("tag", "ts"), s, s))(
        f"tskey-auth-{tok(ALNUM, 12)}-{tok(ALNUM, 30)}"),
    # -- punctuation ---------------------------------------------------------------------
    "assignment_with_symbols": (lambda s: _p(
        "punctuation", ("finding", "description"), f"Found password={s} next to the key.",
        s))(pw(22, "@:/+=!#$%^*,;&'|~?")),
    "sql_connection_string": (lambda s: _p(
        "punctuation", ("meta", "conn"),
        f"Server=tcp:sql1.acme.internal,1433;Database=billing;User ID=sa;Password={s};"
        "Encrypt=True", s))(pw(18, "@,!#&'|~")),
    "odbc_braced_password": (lambda s: _p(
        "punctuation", ("meta", "odbc"),
        "Driver={ODBC Driver 18};Server=db1;Uid=sa;Pwd={" + s + "};", s))(pw(16, "@;!#&")),
    "url_raw_symbols": (lambda s: _p(
        "punctuation", ("tag", "cache"), f"redis://:{s}@cache.acme.internal:6379/0", s))(
        pw(18, "@:/!#&")),
    "url_percent_encoded": (lambda s: _p(
        "punctuation", ("finding", "remediation"),
        f"Remove https://deploy:{urllib.parse.quote(s, safe='')}@git.acme.io/r.git", s))(
        pw(16, "@:/+=")),
    "userinfo_without_scheme": (lambda s: _p(
        "punctuation", ("finding", "evidence"), f"replica svc:{s}@db.acme.internal:5432", s))(
        pw(16, "@:,!")),
    "cli_flag_quoted_with_space": (lambda s: _p(
        "punctuation", ("meta", "bootstrap"),
        f"#!/bin/bash\nmysql -h db -u root --password '{s}' orders\n", s))(
        pw(10, "!#") + " " + pw(8, ";&")),
    "yaml_quoted_with_hash": (lambda s: _p(
        "punctuation", ("meta", "values_yaml"), f'db:\n  password: "{s}"\n  port: 5432\n',
        s))(pw(12, ":#@") + " #" + pw(6, "!")),
    "dotenv_quoted": (lambda s: _p(
        "punctuation", ("meta", "dotenv2"), f'DB_PASSWORD="{s}"\nDEBUG=false\n', s))(
        pw(18, ";&|!")),
    "json_escaped_quote": (lambda s: _p(
        "punctuation", ("finding", "evidence"),
        "config was " + json.dumps({"password": s, "pool": 5}) + " at boot", s))(
        pw(8, "!") + '"' + pw(8, ",")),
    "prose_with_punctuation": (lambda s: _p(
        "punctuation", ("finding", "description"),
        f"The break-glass password is {s} (rotate it).", s))(pw(16, ",;!@#")),
    "curl_user_with_colons": (lambda s: _p(
        "punctuation", ("finding", "evidence"),
        f"curl -u admin:{s} https://jenkins.acme.internal/api/json", s))(pw(16, "@:!")),
    "compact_json_text": (lambda s: _p(
        "punctuation", ("tag", "json"), json.dumps({"password": s}, separators=(",", ":")),
        s))(pw(16, ",;&")),
    "ini_unquoted_with_space": (lambda s: _p(
        "punctuation", ("meta", "odbc_ini"), f"[orders]\nServer=db1\nPassword = {s}\n", s))(
        pw(8, "!@") + " " + pw(8, "#$")),
    "query_string_ampersand": (lambda s: _p(
        "punctuation", ("tag", "hook"), f"https://hooks.acme.io/in?token={s}", s))(
        pw(16, "&|!~")),
}


def _flat() -> dict[str, str]:
    out: dict[str, str] = {}
    for label, plant in PLANTS.items():
        for n, secret in enumerate(plant.secrets):
            out[f"{label}#{n}"] = secret
    return out


#: ``label#n`` → a secret that must never be readable.
SECRETS: dict[str, str] = _flat()


def record(plant: Plant) -> dict[str, Any]:
    """A small estate record holding ``plant`` where its carrier says."""
    where = plant.carrier[0]
    out: dict[str, Any] = {"id": "i-0planted", "name": "host", "tags": {"env": "prod"},
                           "metadata": {}}
    if where == "tag":
        out["tags"][plant.carrier[1]] = plant.value
    elif where == "tag_key":
        out["tags"][plant.value] = "mailgun"
    elif where == "meta":
        out["metadata"][plant.carrier[1]] = plant.value
    elif where == "finding":
        out[plant.carrier[1]] = plant.value
    elif where == "name":
        out["name"] = plant.value
    return out


#: Assets of the planted estate (plants spread over them round-robin).
ASSETS = 12


def asset_id(n: int) -> str:
    return f"arn:aws:ec2:eu-west-1:444455556666:instance/i-0classes{n:08d}"


def write_estate(folder: Path) -> Path:
    """Write ``findings.json`` (``ASSETS`` assets, one finding per plant) holding every plant;
    returns its path."""
    assets: list[dict[str, Any]] = []
    for n in range(ASSETS):
        assets.append({
            "id": asset_id(n), "arn": asset_id(n), "name": f"classes-{n:02d}",
            "asset_type": "EC2", "provider": "AWS", "region": "eu-west-1",
            "account_id": "444455556666", "tags": {"env": "prod"}, "metadata": {},
        })
    findings: list[dict[str, Any]] = []
    named = 0
    for n, plant in enumerate(PLANTS.values()):
        where = plant.carrier[0]
        asset = assets[n % ASSETS]
        if where == "name":
            asset = assets[named]
            named += 1
            asset["name"] = plant.value
        elif where == "tag":
            asset["tags"][plant.carrier[1]] = plant.value
        elif where == "tag_key":
            asset["tags"][plant.value] = "mailgun"
        elif where == "meta":
            asset["metadata"][plant.carrier[1]] = plant.value
        finding: dict[str, Any] = {
            "id": f"c-{n:03d}", "resource_id": asset["id"], "resource_arn": asset["id"],
            "severity": "HIGH", "title": f"Planted finding {n}",
            "description": "A configuration issue.", "evidence": "", "remediation": "Fix it.",
            "source_tool": "planted", "source_finding_id": f"pc-{n}",
            "compliance_frameworks": ["NIST-800-53-Revision-5"],
        }
        if where == "finding":
            finding[plant.carrier[1]] = plant.value
        findings.append(finding)
    path = folder / "findings.json"
    path.write_text(json.dumps({"metadata": {"tool": "planted"}, "assets": assets,
                                "findings": findings}, indent=1))
    return path
