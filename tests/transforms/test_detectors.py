"""Built-in detectors: each finds its kind of value (and only the sensitive part), and common
estate values that are not secrets stay untouched; custom detectors are validated."""

from __future__ import annotations

import random
import string

import pytest

from cloudg_nb.transforms.detectors import (
    BUILTIN_DETECTORS,
    KINDS,
    custom_detector,
    looks_high_entropy,
)
from cloudg_nb.transforms.scan import Scanner
from cloudg_nb.transforms.vendor_tokens import LOWER, MIXED

ALL = Scanner(BUILTIN_DETECTORS)


def _entities(text: str) -> list[tuple[str, str]]:
    return [(f.entity, text[f.start:f.end]) for f in ALL.scan(text)]


@pytest.mark.parametrize("text,entity,found", [
    ("key AKIAHBRPOIG8F1CBFNO6 rotated", "aws_access_key_id", "AKIAHBRPOIG8F1CBFNO6"),
    ("aws_secret_access_key = dz1C5Jau2RJtBRnlWmTSHf6pWkLUyifDLkDmWJ6U",
     "aws_secret_access_key", "dz1C5Jau2RJtBRnlWmTSHf6pWkLUyifDLkDmWJ6U"),
    ("use ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ now", "github_token",
     "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"),
    ("xoxb-2048-1234567890-PlAnTeDsLaCkToKeN42", "slack_token",
     "xoxb-2048-1234567890-PlAnTeDsLaCkToKeN42"),
    ("AIzaW7GboIRoL3u6aHwnMztVuaP_coUNEhEkk_i", "google_api_key",
     "AIzaW7GboIRoL3u6aHwnMztVuaP_coUNEhEkk_i"),
    ("sk_live_WIXiiQE8JkqH3MB9n7IWUSmT", "stripe_key", "sk_live_WIXiiQE8JkqH3MB9n7IWUSmT"),
    ("postgresql://app:Zq8-Pass-41@db:5432/x", "connection_string", "Zq8-Pass-41"),
    ("https://deploy:UrlCred-9931@git.example.com/r.git", "url_credentials", "UrlCred-9931"),
    ("Authorization: Basic ZGVwbG95OnNlY3JldA==", "authorization_header",
     "ZGVwbG95OnNlY3JldA=="),
    ("AccountName=a;AccountKey=qFBwgt8NV37Y1kUXivB6wZXRDwyWPXHcNfcRHN+bICfE==;",
     "azure_storage_key", "qFBwgt8NV37Y1kUXivB6wZXRDwyWPXHcNfcRHN+bICfE=="),
    ("https://a.blob.core.windows.net/c?sv=2022&sig=AbCdEfGh12345678%3D", "azure_sas_token",
     "AbCdEfGh12345678%3D"),
    ('"private_key_id": "ef4f840f3a301267ab346cba0789dc5671a1f3cc"', "gcp_service_account_key",
     "ef4f840f3a301267ab346cba0789dc5671a1f3cc"),
    ("DB_PASSWORD=hunter2-but-longer", "password_assignment", "hunter2-but-longer"),
    ("tag tzQPxC5HChpoevbLJoLoaeTOdoe5c3ve", "high_entropy_string",
     "tzQPxC5HChpoevbLJoLoaeTOdoe5c3ve"),
    ("owner alice@corp.example.org", "email", "alice@corp.example.org"),
    ("from 10.1.2.3 to 54.12.1.9", "ipv4_private", "10.1.2.3"),
    ("from 10.1.2.3 to 54.12.1.9", "ipv4_public", "54.12.1.9"),
    ("ll fe80::1ff:fe23:4567:890a", "ipv6_private", "fe80::1ff:fe23:4567:890a"),
    ("mac 00:1A:2b:3c:4D:5e", "mac_address", "00:1A:2b:3c:4D:5e"),
    ("acct 123456789012 ok", "aws_account_id", "123456789012"),
    ("id 3f2504e0-4f89-11d3-9a0c-0305e82c3301", "uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c3301"),
    ("host db01.corp.internal up", "hostname", "db01.corp.internal"),
    ("reached from jump.shop.lan.", "hostname", "jump.shop.lan"),
    ("served by build-3.ops.acme-corp.io.", "hostname", "build-3.ops.acme-corp.io"),
    ("acct 123456789012.", "aws_account_id", "123456789012"),
    ("image 210987654321.dkr.ecr.eu-west-1.amazonaws.com/api:1", "aws_account_id",
     "210987654321"),
    ("ping 192.168.31.200.", "ipv4_private", "192.168.31.200"),
    ("db ledger-db.c9akciq32xyz.eu-west-1.rds.amazonaws.com:5432", "hostname",
     "ledger-db.c9akciq32xyz.eu-west-1.rds.amazonaws.com"),
    ("image europe-docker.pkg.dev/zephyr-billing-prod/ledger/api:2.0", "gcp_project",
     "zephyr-billing-prod"),
    ("image gcr.io/quartz-ml-sandbox/trainer:7", "gcp_project", "quartz-ml-sandbox"),
    ('{"project_id": "zephyr-billing-prod", "region": "x"}', "gcp_project",
     "zephyr-billing-prod"),
    ("projectId: ledger-prod-42", "gcp_project", "ledger-prod-42"),
    ("gcloud run deploy --project quartz-ml-sandbox", "gcp_project", "quartz-ml-sandbox"),
    ("node ip-10-42-7-19 is ready", "hostname", "ip-10-42-7-19"),
    ("brokers b-1.ledger.abc123.c2.kafka.eu-west-1.amazonaws.com:9094", "hostname",
     "b-1.ledger.abc123.c2.kafka.eu-west-1.amazonaws.com"),
    ("cache ledger.x1y2z3.ng.0001.euw1.cache.amazonaws.com", "hostname",
     "ledger.x1y2z3.ng.0001.euw1.cache.amazonaws.com"),
    ("at 2024-05-01T12:30:00Z", "timestamp", "2024-05-01T12:30:00Z"),
])
def test_detector_finds_its_value(text: str, entity: str, found: str) -> None:
    assert (entity, found) in _entities(text)


@pytest.mark.parametrize("text", [
    "s3.eu-west-1.amazonaws.com", "ec2.us-east-1.amazonaws.com", "version 123456789012.5",
    "the project: Apollo", "docker.io/library/nginx:1.27", "node ip-54-12-1-9 (public)",
])
def test_public_endpoints_versions_and_prose_are_not_identifiers(text: str) -> None:
    assert [e for e, _ in _entities(text) if e in ("hostname", "aws_account_id",
                                                   "gcp_project")] == []


def test_pem_private_key_is_found_whole_with_or_without_end_line() -> None:
    pem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBk=\n-----END EC PRIVATE KEY-----"
    assert _entities(f"key: {pem} trailing") == [("private_key", pem)]
    cut = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU="
    assert _entities(cut) == [("private_key", cut)]


def test_jwt_is_found() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlLWJ5dGVz"
    assert ("jwt", jwt) in _entities(f"token {jwt}")


def test_arn_azure_and_gcp_ids_are_identifiers() -> None:
    arn = "arn:aws:iam::123456789012:role/service-role/Deployer"
    azure = ("/subscriptions/3f2504e0-4f89-11d3-9a0c-0305e82c3301/resourceGroups/rg1/providers/"
             "Microsoft.Compute/virtualMachines/vm1")
    gcp = "projects/my-project-42/zones/europe-west1-b/instances/web-1"
    assert _entities(arn) == [("aws_arn", arn)]
    assert _entities(azure) == [("azure_resource_id", azure)]
    assert _entities(gcp) == [("gcp_resource_name", gcp)]


@pytest.mark.parametrize("text", [
    "i-0123456789abcdef0", "sg-0a1b2c3d4e5f67890", "prod-payments-frontend-cluster-0001",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "MyAppServiceRoleForProduction2024", "AWSServiceRoleForElasticLoadBalancing",
    "password_last_used", "eu-west-1", "t3.medium", "config.yaml", "v1.2.3",
])
def test_common_estate_values_are_not_secrets(text: str) -> None:
    assert [e for e, _ in _entities(text) if e in ("high_entropy_string", "password_assignment")
            or e.endswith(("_key", "_token"))] == []


def test_overlaps_keep_the_more_sensitive_finding() -> None:
    text = "https://admin:Sup3r-Secret-Pw@10.0.0.5/x"
    kinds = [e for e, _ in _entities(text)]
    assert "url_credentials" in kinds and "ipv4_private" in kinds
    assert "email" not in kinds  # "Pw@10.0.0.5" is part of the credentials, not an e-mail


def test_every_builtin_detector_has_a_known_kind_and_a_description() -> None:
    for det in BUILTIN_DETECTORS:
        assert det.kind in KINDS and len(det.description) > 20, det.name


def test_high_entropy_needs_mixed_case_digits_and_spread() -> None:
    assert looks_high_entropy("q8Zr3VtX9pL2mN7wK4sB6yH1cJ5dF0gT")
    assert not looks_high_entropy("abcdefghijklmnopqrstuvwxyz0123")
    assert not looks_high_entropy("ShortMixed12")


def test_custom_detector_finds_its_pattern_group() -> None:
    det = custom_detector(
        {"name": "ticket_secret", "pattern": r"TKT-(\d{6})", "group": 1, "triggers": ["TKT-"]},
        "detectors[0]",
    )
    assert [(f.entity, f.start) for f in Scanner([det]).scan("see TKT-123456")] == [
        ("ticket_secret", 8),
    ]


@pytest.mark.parametrize("spec,message", [
    ({"name": "x", "pattern": "("}, "not a valid regular expression"),
    ({"name": "x", "pattern": "a*"}, "matches the empty string"),
    ({"name": "X Y", "pattern": "a"}, "lower-case name"),
    ({"name": "x", "pattern": "a", "kind": "gossip"}, "kind"),
    ({"name": "x", "pattern": "(a)", "group": 2}, "group"),
    ({"name": "x", "pattern": "a", "strategy": "shred"}, "strategy"),
    ({"name": "x", "pattern": "a", "colour": "red"}, "unknown key 'colour'"),
])
def test_custom_detector_errors_name_the_place(spec: dict, message: str) -> None:
    with pytest.raises(ValueError) as err:
        custom_detector(spec, "detectors[3]")
    assert "detectors[3]" in str(err.value) and message in str(err.value)


# -- vendor token formats ---------------------------------------------------------------------

_R = random.Random(36)
_AN = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"


def _t(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


#: One token per documented format (vendor name as in ``vendor_tokens``), bodies random.
VENDOR_EXAMPLES: dict[str, list[str]] = {
    "Twilio API key": ["SK" + _t(_HEX, 32)],
    "Slack app-level token": [f"xapp-1-A{_t('ABCDEFG0123', 10)}-{_t('0123456789', 13)}-"
                              f"{_t(_HEX, 64)}"],
    "Linear": ["lin_api_" + _t(_AN, 40)],
    "New Relic": ["NRAK-" + _t("ABCDEFGHJK0123456789", 27), _t(_HEX, 36) + "NRAL"],
    "Postman": [f"PMAK-{_t(_HEX, 24)}-{_t(_HEX, 34)}"],
    "age": ["AGE-SECRET-KEY-1" + _t("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)],
    "GitLab": ["glpat-" + _t(_AN + "_-", 20), "glsoat-" + _t(_AN, 20), "GR1348941" + _t(_AN, 20)],
    "npm": ["npm_" + _t(_AN, 36)],
    "PyPI": ["pypi-AgEIcHlwaS5vcmc" + _t(_AN + "_-", 70)],
    "SendGrid": [f"SG.{_t(_AN, 22)}.{_t(_AN, 43)}"],
    "Hugging Face": ["hf_" + _t(_AN, 34), "api_org_" + _t(_AN, 34)],
    "OpenAI": ["sk-proj-" + _t(_AN, 60), f"sk-{_t(_AN, 20)}T3BlbkFJ{_t(_AN, 20)}",
               "sk-" + _t(_AN, 46) + "A1"],
    "Anthropic": ["sk-ant-api03-" + _t(_AN, 93) + "AA", "sk-ant-admin01-" + _t(_AN, 60)],
    "Groq, xAI, Replicate, Perplexity": ["gsk_" + _t(_AN, 52), "xai-" + _t(_AN, 80),
                                         "r8_" + _t(_AN, 37), "pplx-" + _t(_AN, 48)],
    "HashiCorp Vault": ["hvs." + _t(_AN, 90), "s.abcdefghABCDEFGH01234567"],
    "Terraform Cloud": [f"{_t(_AN, 14)}.atlasv1.{_t(_AN, 67)}"],
    "Doppler": ["dp.pt." + _t(_AN, 43)],
    "Grafana": ["glsa_" + _t(_AN, 32) + "_" + _t(_HEX, 8), "eyJrIjoi" + _t(_AN, 80)],
    "Sentry": ["sntrys_eyJpYXQiOjE" + _t(_AN, 60)],
    "Notion": ["ntn_" + _t(_AN, 46)],
    "Atlassian": ["ATATT3x" + _t(_AN, 180), "ATBB" + _t(_AN, 32)],
    "JFrog Artifactory": ["AKCp" + _t(_AN, 69)],
    "Square": ["EAAA" + _t(_AN, 60), "sq0csp-" + _t(_AN, 43)],
    "Facebook": ["EAACEdEose0cBA" + _t(_AN, 40)],
    "Telegram": [f"{_t('123456789', 10)}:AA{_t(_AN, 33)}"],
    "Google OAuth": ["GOCSPX-" + _t(_AN, 28), "ya29." + _t(_AN, 100), "1//0" + _t(_AN, 60)],
    "Azure AD client secret": [f"{_t(_AN, 3)}8Q~{_t(_AN + '_~.-', 34)}"],
    "AWS Bedrock": ["ABSK" + _t(_AN, 120)],
    "Alibaba Cloud": ["LTAI" + _t(_AN, 20)],
    "Heroku": ["HRKU-AA" + _t(_AN, 58)],
    "Stripe webhook secret": ["whsec_" + _t(_AN, 32)],
    "Docker Hub": ["dckr_pat_" + _t(_AN, 27)],
    "CircleCI": [f"CCIPAT_{_t(_AN, 22)}_{_t(_HEX, 40)}"],
    "1Password": ["ops_eyJ" + _t(_AN, 260), "A3-ABC123-DEF456GHI78-JKL90-MNO12-PQR34"],
    "Airtable": [f"pat{_t(_AN, 14)}.{_t(_HEX, 64)}"],
    "Contentful": ["CFPAT-" + _t(_AN, 43)],
    "Dynatrace": [f"dt0c01.{_t(_AN, 24)}.{_t(_AN, 64)}"],
    "EasyPost": ["EZAK" + _t(_AN, 54)],
    "Duffel": ["duffel_live_" + _t(_AN, 43)],
    "Figma": ["figd_" + _t(_AN, 40)],
    "Fly.io": ["fo1_" + _t(_AN, 43)],
    "Frame.io": ["fio-u-" + _t(_AN, 64)],
    "Infracost": ["ico-" + _t(_AN, 32)],
    "MaxMind": [f"{_t(_AN, 6)}_{_t(_AN, 29)}_mmk"],
    "OpenShift": ["sha256~" + _t(_AN, 43)],
    "PlanetScale": ["pscale_tkn_" + _t(_AN, 43)],
    "Prefect": ["pnu_" + _t(_AN, 36)],
    "Scalingo": ["tk-us-" + _t(_AN, 48)],
    "Brevo (Sendinblue)": [f"xkeysib-{_t(_HEX, 64)}-{_t(_AN, 16)}"],
    "Shippo": ["shippo_live_" + _t(_HEX, 40)],
    "Supabase": ["sb_secret_" + _t(_AN, 32), "sbp_" + _t(_HEX, 40)],
    "Tailscale": [f"tskey-auth-{_t(_AN, 12)}-{_t(_AN, 30)}"],
    "Typeform": ["tfp_" + _t(_AN, 59)],
    "Netlify, Render": ["nfp_" + _t(_AN, 36), "rnd_" + _t(_AN, 32)],
    "Harness": [f"pat.{_t(_AN, 22)}.{_t(_AN, 24)}.{_t(_AN, 20)}"],
    "Sourcegraph": [f"sgp_{_t(_HEX, 16)}_{_t(_HEX, 40)}"],
    "Yandex Cloud": ["AQVN" + _t(_AN, 36)],
    "Discord bot": [f"MTA{_t(_AN, 21)}.{_t(_AN, 6)}.{_t(_AN, 30)}"],
    "Twitter/X bearer": ["A" * 22 + _t(_AN, 90)],
    "Dropbox": ["sl." + _t(_AN, 140)],
    "Mapbox secret": [f"sk.eyJ{_t(_AN, 60)}.{_t(_AN, 22)}"],
    "Adobe": ["p8e-" + _t(_AN, 32)],
    "Clojars": ["CLOJARS_" + _t("abcdefghij0123456789", 60)],
    "Flutterwave": [f"FLWSECK_TEST-{_t('abcdef0123', 32)}-X"],
    "Octopus Deploy": ["API-" + _t("ABCDEFGHJK", 20) + "123456"],
    "Mandrill": ["md-" + _t(string.ascii_lowercase, 18) + "Ab1x"],
    "Mailgun": ["key-" + _t(string.ascii_lowercase + string.digits, 30) + "a1",
                "key-" + _t(_HEX, 30) + "0a"],
    "Mailchimp": [_t(_HEX, 32) + "-us21"],
    "Pulumi": ["pul-" + _t(_HEX, 40)],
    "RubyGems": ["rubygems_" + _t(_HEX, 48)],
    "DigitalOcean": ["dop_v1_" + _t(_HEX, 64)],
    "Databricks": ["dapi" + _t(_HEX, 32)],
    "Shopify": ["shpat_" + _t(_HEX, 32), "shpss_" + _t(_HEX, 32)],
    "GitLab trigger token": ["glptt-" + _t(_HEX, 40)],
    "Sentry user token": ["sntryu_" + _t(_HEX, 64)],
    "Buildkite": ["bkua_" + _t(_HEX, 40)],
    "SonarQube": ["sqp_" + _t(_HEX, 40)],
    "ReadMe": ["rdme_" + _t(string.ascii_lowercase + string.digits, 70)],
    "NuGet": ["oy2" + _t(string.ascii_lowercase + string.digits, 43)],
    "Cloudflare origin CA": [f"v1.0-{_t(_HEX, 24)}-{_t(_HEX, 146)}"],
}


#: Rare lower-case formats found where the string also holds an upper-case letter.
IN_MIXED_TEXT = ("sbp_", "bkua_", "sqp_", "rdme_", "oy2", "v1.0-")


def test_every_vendor_format_has_an_example_here() -> None:
    assert {name for name, _ in (*MIXED, *LOWER)} == set(VENDOR_EXAMPLES)


@pytest.mark.parametrize("token", [t for tokens in VENDOR_EXAMPLES.values() for t in tokens])
@pytest.mark.parametrize("where", ["{t}", "tag value: {t}.", '{{"key": "{t}"}}',
                                   "https://api:{t}@api.example.net/v3"])
def test_vendor_token_is_found_whole_wherever_it_sits(token: str, where: str) -> None:
    text = where.format(t=token)
    if text.islower() and token.startswith(IN_MIXED_TEXT):
        text = f"CI_TOKEN {text}"
    found = [(e, v) for e, v in _entities(text) if token in v or v in token]
    assert found and all(token in v for _, v in found), found


def test_mailgun_current_private_key_is_found() -> None:
    key = f"{_t(_HEX, 32)}-{_t(_HEX, 8)}-{_t(_HEX, 8)}"
    assert ("mailgun_private_key", key) in _entities(f"MG {key} set")


@pytest.mark.parametrize("text", [
    "key-rotation-enabled-for-all-customer-managed", "sk-learn-pipeline-for-churn-model-2024",
    "s.ExampleCamelCaseValue", "NIST-800-53-Revision-5", "API-GATEWAY-STAGE-PRODUCTION",
    "md-raid-device-array-0001", "sha256:4b8e8a3c1f0e2d9c7a6b5f4e3d2c1b0a9f8e7d6c5b4a39281706f5e4d",
    "8f14e45f-ceea-467a-9a36-dedd4bea2543-us1",
])
def test_vendor_lookalikes_are_not_tokens(text: str) -> None:
    assert [e for e, _ in _entities(text) if e.startswith(("vendor_", "mailgun"))] == []
