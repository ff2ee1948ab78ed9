"""Built-in detectors: each finds its kind of value (and only the sensitive part), and common
estate values that are not secrets stay untouched; custom detectors are validated."""

from __future__ import annotations

import pytest

from cloudg_nb.transforms.detectors import (
    BUILTIN_DETECTORS,
    KINDS,
    custom_detector,
    looks_high_entropy,
)
from cloudg_nb.transforms.scan import Scanner

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
