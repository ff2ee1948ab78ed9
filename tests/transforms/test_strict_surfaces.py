"""Acceptance: under ``strict``, on the demo estate plus an estate file of planted identifiers
loaded with ``load_dataset``, no raw account id, GCP project id, private IP, e-mail or private
host name reaches any surface (every tool — group keys included —, resource, template, prompt
and completion), wherever it sits: ECR registry hosts, ``*-docker.pkg.dev/<project>/…`` paths,
``projects/<project>/…`` names, JSON text inside a string, RDS endpoints, prose. The same
estate under ``open`` shows every one (so the check can fail), and the pseudonyms ``strict``
returns work as arguments (get_asset, account filters, templates, prompts)."""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.estate.samples import AZ_SUB, GCP_PROJECT, PARTNER, PROD, SHARED
from cloudg_nb.policy.document import load_document
from cloudg_nb.policy.engine import Policy
from tests.catalog.support import make_layer

from .estate_surfaces import collect_surfaces

ACCOUNT = "210987654321"
TRUSTED_ACCOUNT = "358811223344"
PROJECT = "zephyr-billing-prod"
OTHER_PROJECT = "quartz-ml-sandbox"
RDS_HOST = "ledger-db.c9akciq32xyz.eu-west-1.rds.amazonaws.com"
ECR_IMAGE = f"{ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com/payments-api:1.4.2"
GAR_IMAGE = f"europe-docker.pkg.dev/{PROJECT}/ledger/api:2.0"
LAMBDA = f"arn:aws:lambda:eu-west-1:{ACCOUNT}:function:payments-api"
RDS = f"arn:aws:rds:eu-west-1:{ACCOUNT}:db:ledger-db"
BATCH = f"arn:aws:ec2:eu-west-1:{ACCOUNT}:instance/i-0ledger0000000001"
GCE = f"//compute.googleapis.com/projects/{PROJECT}/zones/europe-west1-b/instances/ledger-api-1"
BUCKET = "//storage.googleapis.com/projects/_/buckets/quartz-ml-raw"
CDK_BUCKET = f"cdk-hnb659fds-assets-{ACCOUNT}-eu-west-1"
TRAIL_BUCKET = f"aws-cloudtrail-logs-{ACCOUNT}-3f2a"

#: label → a raw identifier that must never leave the layer under strict.
PLANTED: dict[str, str] = {
    "account in ARNs, ECR hosts and bucket names": ACCOUNT,
    "account in prose": TRUSTED_ACCOUNT,
    "GCP project": PROJECT,
    "GCP project in prose and flags": OTHER_PROJECT,
    "RDS endpoint": "ledger-db.c9akciq32xyz",
    "private host (.internal)": "db01.corp.internal",
    "private host (.lan)": "build-7.ci.acme.lan",
    "e-mail in a tag": "maria.keller@zephyr-payments.com",
    "e-mail in prose": "oncall+db@acme-corp.io",
    "service-account e-mail": f"ledger-sa@{PROJECT}.iam.gserviceaccount.com",
    "private IP 10/8": "10.42.7.19",
    "private IP 172.16/12": "172.16.88.4",
    "private IP 192.168/16": "192.168.31.200",
    "private IP in GCP metadata": "10.42.9.3",
    "private IP spelled in a node name": "ip-10-42-7-19",
}
#: The demo estate's own identifiers: its AWS accounts, Azure subscription and GCP project.
DEMO: dict[str, str] = {
    "demo prod account": PROD, "demo shared account": SHARED,
    "demo partner account": PARTNER, "demo Azure subscription": AZ_SUB,
    "demo GCP project": GCP_PROJECT,
}

_ASSETS: list[dict[str, Any]] = [
    {"id": LAMBDA, "arn": LAMBDA, "name": "payments-api", "asset_type": "LAMBDA_FUNCTION",
     "provider": "AWS", "region": "eu-west-1", "account_id": ACCOUNT,
     "tags": {"env": "prod", "owner": "maria.keller@zephyr-payments.com"},
     "metadata": {"image_uri": ECR_IMAGE,
                  "role": f"arn:aws:iam::{ACCOUNT}:role/payments-api-exec",
                  "note": f"Assumed from account {TRUSTED_ACCOUNT} by the audit pipeline"}},
    {"id": RDS, "arn": RDS, "name": "ledger-db", "asset_type": "RDS_INSTANCE",
     "provider": "AWS", "region": "eu-west-1", "account_id": ACCOUNT, "tags": {"env": "prod"},
     "metadata": {"endpoint": RDS_HOST, "port": 5432, "private_ip": "10.42.7.19",
                  "connection": f"host={RDS_HOST} port=5432 dbname=ledger sslmode=require"}},
    {"id": BATCH, "arn": BATCH, "name": "ledger-batch-1", "asset_type": "EC2",
     "provider": "AWS", "region": "eu-west-1", "account_id": ACCOUNT, "tags": {"env": "prod"},
     "metadata": {"private_dns": "db01.corp.internal", "private_ip_address": "172.16.88.4",
                  "hosts": "192.168.31.200 build-7.ci.acme.lan",
                  "runbook": "Page oncall+db@acme-corp.io when db01.corp.internal is down"}},
    {"id": GCE, "name": "ledger-api-1", "asset_type": "GCE_INSTANCE", "provider": "GCP",
     "region": "europe-west1", "account_id": PROJECT, "tags": {"env": "prod"},
     "metadata": {"image": GAR_IMAGE,
                  "serviceAccount": f"ledger-sa@{PROJECT}.iam.gserviceaccount.com",
                  "config": json.dumps({"project_id": PROJECT, "region": "europe-west1"}),
                  "topic": f"projects/{PROJECT}/topics/ledger-events", "networkIP": "10.42.9.3",
                  "kube_context": f"gke_{PROJECT}_europe-west1_ledger",
                  "node": "ip-10-42-7-19.eu-west-1.compute.internal"}},
    {"id": BUCKET, "name": "quartz-ml-raw", "asset_type": "GCS_BUCKET", "provider": "GCP",
     "region": "europe-west4", "account_id": OTHER_PROJECT, "tags": {"env": "dev"},
     "metadata": {"trainer_image": f"gcr.io/{OTHER_PROJECT}/trainer:7"}},
    {"id": f"arn:aws:s3:::{CDK_BUCKET}", "name": CDK_BUCKET, "asset_type": "S3_BUCKET",
     "provider": "AWS", "region": "eu-west-1", "account_id": ACCOUNT, "tags": {"env": "prod"},
     "metadata": {"logging_target": f"s3://{TRAIL_BUCKET}/AWSLogs/"}},
]
_FINDINGS: list[dict[str, Any]] = [
    {"id": "sf-1", "resource_id": LAMBDA, "severity": "CRITICAL",
     "title": f"Image in {ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com has critical CVEs",
     "description": f"Image {ECR_IMAGE} runs as arn:aws:iam::{ACCOUNT}:role/payments-api-exec.",
     "remediation": "Ask maria.keller@zephyr-payments.com to rebuild the image."},
    {"id": "sf-2", "resource_id": RDS, "severity": "HIGH",
     "title": f"Database {RDS_HOST} is reachable from 10.42.7.0/24",
     "evidence": f"Connection from 10.42.7.19 to {RDS_HOST}:5432 succeeded"},
    {"id": "sf-3", "resource_id": BATCH, "severity": "MEDIUM",
     "title": "Batch host db01.corp.internal resolves a build host",
     "description": "db01.corp.internal (172.16.88.4) resolves build-7.ci.acme.lan to "
                    "192.168.31.200."},
    {"id": "sf-4", "resource_id": GCE, "severity": "HIGH",
     "title": f"Project {PROJECT} grants roles/viewer to allUsers",
     "remediation": f"kubectl --context gke_{PROJECT}_europe-west1_ledger cordon ip-10-42-7-19",
     "description": f"The image {GAR_IMAGE} is public.",
     "evidence": json.dumps({"project_id": PROJECT, "bindings": [
         {"role": "roles/viewer", "members": ["allUsers"]}]})},
    {"id": "sf-5", "resource_id": BUCKET, "severity": "MEDIUM",
     "title": f"Bucket of {OTHER_PROJECT} is public",
     "remediation": "gcloud storage buckets update gs://quartz-ml-raw "
                    f"--project={OTHER_PROJECT} --no-public-access"},
    {"id": "sf-6", "resource_id": LAMBDA, "severity": "LOW",
     "title": f"Execution role trusts account {TRUSTED_ACCOUNT} without an external id"},
    {"id": "sf-7", "resource_id": f"arn:aws:s3:::{CDK_BUCKET}", "severity": "MEDIUM",
     "title": f"Bucket {CDK_BUCKET} has no lifecycle rule",
     "description": f"Access logs go to {TRAIL_BUCKET}."},
]


def _write_estate(folder: Path) -> None:
    findings = [{"source_tool": "planted", "compliance_frameworks": ["NIST-800-53-Revision-5"],
                 "description": "", "remediation": "Fix it.", **f} for f in _FINDINGS]
    (folder / "identifiers.json").write_text(json.dumps(
        {"metadata": {"tool": "planted"}, "assets": _ASSETS, "findings": findings}, indent=1))


def _policy(name: str) -> Policy:
    doc = load_document(name)
    doc["rate_limits"] = []  # hundreds of calls in one test: the limit is not under test
    if name == "strict":
        doc["vault"] = {"key": "strict-surfaces-test-key-0123456789abcdef"}
    return Policy(doc)


@pytest.fixture(autouse=True)
def _quiet(caplog):
    caplog.set_level(logging.CRITICAL, logger="cloudg.mcp")


async def _layer(tmp_path: Path, policy: str) -> CloudGMCPLayer:
    layer = make_layer(tmp_path, policy=_policy(policy))  # type: ignore[arg-type]
    _write_estate(tmp_path / "data")
    loaded = await layer.call_tool("load_dataset", {"path": "identifiers.json",
                                                    "name": "planted"})
    assert not loaded.is_error, loaded.text
    demo = await layer.call_tool("sample_estate", {"name": "demo", "activate": False})
    assert not demo.is_error, demo.text
    return layer


async def _ids(layer: CloudGMCPLayer, dataset: str) -> tuple[list[str], list[str]]:
    """Asset and finding ids of ``dataset`` as the caller sees them (pseudonyms under
    strict): what a model passes back."""
    assets = await layer.call_tool("find_assets", {"dataset": dataset, "limit": 500})
    findings = await layer.call_tool("list_findings", {"dataset": dataset, "limit": 500})
    assert not assets.is_error and not findings.is_error, (assets.text, findings.text)
    return ([a["id"] for a in assets.structured["items"]],
            [f["id"] for f in findings.structured["items"]])


async def _walk(tmp_path: Path, policy: str) -> dict[str, list[str]]:
    """Every surface over the planted estate and the demo, called with the ids the policy
    shows (pseudonyms under strict, as a model would pass them back)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    layer = await _layer(tmp_path, policy)
    asset_ids, finding_ids = await _ids(layer, "planted")
    assert len(asset_ids) == len(_ASSETS) and len(finding_ids) == len(_FINDINGS)
    surfaces = await collect_surfaces(layer, dataset="planted", base="demo",
                                      asset_ids=asset_ids, finding_ids=finding_ids)
    # the demo's own surfaces too: its assets, findings, prompts and group keys
    await layer.call_tool("select_dataset", {"name": "demo"})
    asset_ids, finding_ids = await _ids(layer, "demo")
    demo = await collect_surfaces(layer, dataset="demo", base="planted",
                                  asset_ids=asset_ids[::6], finding_ids=finding_ids[::4])
    surfaces.update({f"demo {k}": v for k, v in demo.items()})
    return surfaces


def _raw_identifiers_shown(surfaces: dict[str, list[str]]) -> dict[str, list[str]]:
    """Label → the surfaces showing that raw identifier."""
    shown: dict[str, list[str]] = {}
    for surface, strings in surfaces.items():
        hay = "\x00".join(strings)
        for label, raw in {**PLANTED, **DEMO}.items():
            if raw in hay:
                shown.setdefault(label, []).append(surface)
    return shown


def _failed_tools(surfaces: dict[str, list[str]]) -> Counter[str]:
    """Tool name → how many of its calls answered with an error."""
    failed: Counter[str] = Counter()
    for surface, strings in surfaces.items():
        words = surface.removeprefix("demo ").split()
        if words[0] == "tool" and '"isError": true' in strings[-1]:
            failed[words[1]] += 1
    return failed


async def test_no_raw_identifier_reaches_any_surface_under_strict(tmp_path: Path) -> None:
    shown = _raw_identifiers_shown(await _walk(tmp_path, "strict"))
    assert {label: where[:4] for label, where in shown.items()} == {}


async def test_every_planted_identifier_is_visible_under_open(tmp_path: Path) -> None:
    shown = _raw_identifiers_shown(await _walk(tmp_path, "open"))
    assert sorted((set(PLANTED) | set(DEMO)) - set(shown)) == []


async def test_every_tool_answers_with_pseudonymised_ids_as_it_does_with_real_ones(
        tmp_path: Path) -> None:
    failed_open = _failed_tools(await _walk(tmp_path / "open", "open"))
    failed_strict = _failed_tools(await _walk(tmp_path / "strict", "strict"))
    assert "export_dataset" not in failed_open
    assert failed_strict.pop("export_dataset") == 2  # strict denies file writes
    assert failed_strict == failed_open  # the rest: invalid group_by keys, both policies


async def _strict_assets(tmp_path: Path) -> tuple[CloudGMCPLayer, dict[str, dict[str, Any]]]:
    """The strict layer and the planted assets as it shows them, by asset name."""
    layer = await _layer(tmp_path, "strict")
    result = await layer.call_tool("find_assets", {"dataset": "planted", "limit": 500})
    assert not result.is_error, result.text
    return layer, {a["name"]: a for a in result.structured["items"]}


async def test_pseudonymised_asset_ids_resolve_with_get_asset(tmp_path: Path) -> None:
    layer, assets = await _strict_assets(tmp_path)
    for asset in assets.values():
        got = await layer.call_tool("get_asset", {"ref": asset["id"], "dataset": "planted"})
        assert not got.is_error, got.text
        assert got.structured["id"] == asset["id"]


async def test_pseudonymised_account_filters_find_assets(tmp_path: Path) -> None:
    layer, assets = await _strict_assets(tmp_path)
    account = assets["payments-api"]["account_id"]
    project = assets["ledger-api-1"]["account_id"]
    assert account != ACCOUNT and account.isdigit() and project != PROJECT
    by_account = await layer.call_tool("find_assets", {"dataset": "planted",
                                                       "account_id": account})
    by_project = await layer.call_tool("find_assets", {"dataset": "planted",
                                                       "account_id": project})
    assert sorted(a["name"] for a in by_account.structured["items"]) == [
        CDK_BUCKET.replace(ACCOUNT, account), "ledger-batch-1", "ledger-db", "payments-api"]
    assert [a["name"] for a in by_project.structured["items"]] == ["ledger-api-1"]


async def test_pseudonymised_group_keys_filter_back_to_their_groups(tmp_path: Path) -> None:
    layer = await _layer(tmp_path, "strict")
    counted = await layer.call_tool("count_assets", {"dataset": "planted",
                                                     "group_by": "account_id"})
    groups = counted.structured["groups"]
    assert {g["group"] for g in groups}.isdisjoint({ACCOUNT, PROJECT, OTHER_PROJECT})
    for group in groups:
        found = await layer.call_tool("count_assets", {"dataset": "planted",
                                                       "account_id": group["group"]})
        assert found.structured["total"] == group["count"]


async def test_a_pseudonymised_bucket_name_finds_its_bucket(tmp_path: Path) -> None:
    layer, assets = await _strict_assets(tmp_path)
    account = assets["payments-api"]["account_id"]
    name = CDK_BUCKET.replace(ACCOUNT, account)
    assert name in assets
    got = await layer.call_tool("get_asset", {"ref": name, "dataset": "planted"})
    assert not got.is_error, got.text
    assert got.structured["name"] == name
    assert got.structured["metadata"]["logging_target"] == (
        f"s3://{TRAIL_BUCKET.replace(ACCOUNT, account)}/AWSLogs/")


async def test_pseudonymised_uri_and_prompt_ref_reach_the_asset(tmp_path: Path) -> None:
    layer, assets = await _strict_assets(tmp_path)
    ref = assets["ledger-db"]["id"]
    contents = await layer.read_resource(f"cloudg://assets/{ref}")
    assert json.loads(contents[0].text)["id"] == ref
    prompt = await layer.get_prompt("investigate_asset", {"ref": ref, "dataset": "planted"})
    text = prompt.messages[0].content.text
    assert ref in text and "ledger-db" in text and RDS_HOST not in text


async def test_a_project_has_one_pseudonym_in_accounts_names_and_registry_paths(
        tmp_path: Path) -> None:
    layer, assets = await _strict_assets(tmp_path)
    gce = assets["ledger-api-1"]
    project = gce["account_id"]
    assert gce["id"].startswith(f"//compute.googleapis.com/projects/{project}/zones/")
    got = await layer.call_tool("get_asset", {"ref": gce["id"], "dataset": "planted"})
    metadata = got.structured["metadata"]
    assert metadata["image"] == f"europe-docker.pkg.dev/{project}/ledger/api:2.0"
    assert json.loads(metadata["config"])["project_id"] == project
    assert metadata["topic"].startswith(f"projects/{project}/topics/")


async def test_endpoints_and_registry_hosts_keep_their_public_part(tmp_path: Path) -> None:
    layer, assets = await _strict_assets(tmp_path)
    account = assets["payments-api"]["account_id"]
    lam = await layer.call_tool("get_asset", {"ref": assets["payments-api"]["id"],
                                              "dataset": "planted"})
    assert lam.structured["metadata"]["image_uri"] == (
        f"{account}.dkr.ecr.eu-west-1.amazonaws.com/payments-api:1.4.2")
    db = await layer.call_tool("get_asset", {"ref": assets["ledger-db"]["id"],
                                             "dataset": "planted"})
    endpoint = db.structured["metadata"]["endpoint"]
    assert endpoint.endswith(".eu-west-1.rds.amazonaws.com") and endpoint != RDS_HOST
    assert db.structured["metadata"]["connection"].startswith(f"host={endpoint} port=5432")


async def test_a_project_named_in_prose_is_pseudonymised_in_the_first_answer(
        tmp_path: Path) -> None:
    layer = await _layer(tmp_path, "strict")
    finding = await layer.call_tool("get_finding", {"finding_id": "sf-5",
                                                    "dataset": "planted"})
    assert not finding.is_error, finding.text
    title = finding.structured["title"]
    assert title.startswith("Bucket of p-") and title.endswith(" is public")


async def test_standard_leaves_identifiers_as_they_are(tmp_path: Path) -> None:
    layer = await _layer(tmp_path, "standard")
    got = await layer.call_tool("get_asset", {"ref": GCE, "dataset": "planted"})
    assert got.structured["account_id"] == PROJECT
    assert got.structured["metadata"]["image"] == GAR_IMAGE
    db = await layer.call_tool("get_asset", {"ref": RDS, "dataset": "planted"})
    assert db.structured["metadata"]["endpoint"] == RDS_HOST
