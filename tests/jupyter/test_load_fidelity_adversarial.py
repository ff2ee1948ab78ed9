"""Loading Prowler files that hold several scans through a real Jupyter server, as an attacker
holding a minted assistant token would (its loads approved by the analyst) and as the analyst:
every provider's assets and findings load (Kubernetes as KUBERNETES), per-provider counts agree
across load_report, dataset_summary, count_assets and list_accounts, and a hostile file cannot
make a result vanish, hijack another provider's resource or account, or flood the report —
what a load merges, renames or keeps apart is counted and named in load_report.

The expected counts come from the scans' definitions (``prowler_scans.SCANS``), not from the
loader."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.estate.formats.prowler_scans import SCANS, ocsf, write_csv
from tests.notebook.assistants import Background, mint
from tests.protocol.harness import TIMEOUT, ClientSession, open_session

from .server import JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

EXAMPLES = Path(__file__).resolve().parents[1] / "estate" / "data" / "prowler-examples"
EXAMPLE_PROVIDERS = {"aws": "AWS", "azure": "AZURE", "gcp": "GCP", "kubernetes": "KUBERNETES"}


def _expected(scans: list[str]) -> dict[str, dict[str, int]]:
    """Per provider: results, assets (each scan's account and distinct resources) and
    findings (its failing results) of ``scans`` as defined."""
    out: dict[str, Counter[str]] = {}
    for key in scans:
        scan = SCANS[key]
        provider = {"aws": "AWS", "azure": "AZURE", "gcp": "GCP",
                    "kubernetes": "KUBERNETES"}.get(scan["provider"], "OTHER")
        results = scan["results"]
        line = out.setdefault(provider, Counter())
        line.update(records=len(results), findings=sum(r[1] == "FAIL" for r in results),
                    assets=1 + len({r[5] or r[6] for r in results}))
    return {p: dict(c) for p, c in out.items()}


ALL = list(SCANS)


def _write_files(root: Path) -> None:
    """The scan files an assistant or analyst loads (written as Prowler writes them)."""
    records = [r for key in ALL for r in ocsf(key)]
    (root / "scans.ocsf.json").write_text(json.dumps(records))
    (root / "scans-arrays.ocsf.json").write_text("".join(json.dumps(ocsf(k)) for k in ALL))
    (root / "scans-lines.ocsf.json").write_text("\n".join(map(json.dumps, records)) + "\n")
    write_csv(root / "scans.csv", ALL)
    write_csv(root / "scans-cat.csv", ALL, header_each=True)
    for provider in EXAMPLE_PROVIDERS:
        name = f"example_output_{provider}.ocsf.json"
        (root / name).write_text((EXAMPLES / name).read_text())
    (root / "examples.ocsf.json").write_text("".join(
        (EXAMPLES / f"example_output_{p}.ocsf.json").read_text() for p in EXAMPLE_PROVIDERS))
    _write_attacks(root)


def _write_attacks(root: Path) -> None:
    aws = ocsf("aws")
    # another provider's "rescan" reusing the AWS finding ids, newer and passing
    shadow = [ocsf("github")[0] for _ in aws]
    for rec, victim in zip(shadow, aws, strict=True):
        rec["finding_info"]["uid"] = victim["finding_info"]["uid"]
        rec["time_dt"], rec["status_code"] = "2026-04-01T00:00:00.000000", "PASS"
    (root / "shadow-other.ocsf.json").write_text(json.dumps([*aws, *shadow]))
    # the same account's result again, newer and passing: a rescan, so it merges
    again = copy.deepcopy(aws[0])
    again["time_dt"], again["status_code"] = "2026-04-01T00:00:00.000000", "PASS"
    (root / "shadow-same.ocsf.json").write_text(json.dumps([*aws, again]))
    # a GitHub scan claiming the AWS bucket's ARN and the AWS account id
    claim = ocsf("github")
    claim[0]["resources"][0].update(uid="arn:aws:s3:::shop-media", name="harmless")
    claim[0]["cloud"]["account"]["uid"] = "111122223333"
    claim[0]["unmapped"]["provider_uid"] = "111122223333"
    (root / "claim.ocsf.json").write_text(json.dumps([*claim, *aws]))
    # CSVs concatenated whose second header has STATUS and STATUS_EXTENDED swapped
    first = write_csv(root / "part-a.csv", ["aws"]).read_text()
    lines = write_csv(root / "part-b.csv", ["gcp"]).read_text().splitlines()
    header = lines[0].split(";")
    header[13], header[14] = header[14], header[13]
    (root / "mixed-header.csv").write_text(first + ";".join(header) + "\n"
                                           + "\n".join(lines[1:]) + "\n")
    # sixty long provider words
    flood = []
    for n in range(60):
        rec = ocsf("github")[0]
        rec["cloud"]["provider"] = f"{n:02d}" + "p" * 300
        rec["finding_info"]["uid"] = f"flood-{n}"
        flood.append(rec)
    (root / "flood.ocsf.json").write_text(json.dumps(flood))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("fidelity")
    with jupyter_server(tmp, base_url="/", extra_args=[
            # the assistant loads a dataset per case: a share that holds them all
            "--CloudGExtension.approval_timeout=60",
            "--CloudGExtension.assistant_max_datasets=64"]) as started:
        _write_files(started.root_dir)
        yield started


@pytest.fixture(scope="module")
def bot(server: JupyterServer) -> Iterator[ClientSession]:
    """An MCP session of the assistant ``loader`` (its own minted token)."""
    token = mint(server, "loader")
    with open_session(server.endpoint, "2025",
                      headers={"Authorization": f"Bearer {token}"}) as session:
        yield session


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Iterator[ClientSession]:
    with open_session(server.endpoint, "2026", headers=server.headers) as session:
        yield session


def approved(bot: ClientSession, analyst: ClientSession, tool: str,
             arguments: dict[str, Any]) -> Any:
    """The assistant's ``tool`` call, run once the analyst approves it."""
    job = Background(lambda: bot.call_tool(tool, arguments))

    def pending() -> dict[str, Any] | None:
        data = json.loads(analyst.read_resource("cloudg://approvals").contents[0].text)
        return next((a for a in data["pending"] if a["tool"] == tool), None)

    approval = analyst.wait_for(pending, timeout=TIMEOUT)
    assert approval["principal"] == "assistant:loader"
    decided = analyst.call_tool("decide_approval", {"approval_id": approval["id"],
                                                    "decision": "approve"})
    assert decided.structured_content["state"] == "approved"
    return job.join(TIMEOUT)


def loaded(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return dict(result.structured_content)


def providers_of(report: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {p: {k: v for k, v in line.items() if k != "as_written"}
            for p, line in report["providers"].items()}


# -- every provider loads, and every view counts it alike --------------------------------------


def test_an_assistants_approved_load_of_seven_scans_keeps_every_provider(
        bot: ClientSession, analyst: ClientSession) -> None:
    out = loaded(approved(bot, analyst, "load_dataset",
                          {"path": "scans.ocsf.json", "name": "scans", "replace": True}))
    assert providers_of(out["load_report"]) == _expected(ALL)
    assert out["load_report"]["providers"]["OTHER"]["as_written"] == ["github", "m365"]
    summary = bot.call_tool("dataset_summary", {"dataset": "scans"}).structured_content
    assert summary["providers"] == {p: c["assets"] for p, c in _expected(ALL).items()}
    groups = bot.call_tool("count_assets", {"dataset": "scans", "group_by": "provider"}
                           ).structured_content["groups"]
    assert {g["group"]: g["count"] for g in groups} == summary["providers"]


def test_each_kubernetes_cluster_is_an_account_of_provider_kubernetes(
        bot: ClientSession, analyst: ClientSession) -> None:
    loaded(analyst.call_tool("load_dataset", {"path": "scans.ocsf.json", "name": "k8s-view",
                                              "replace": True}))
    items = bot.call_tool("list_accounts", {"dataset": "k8s-view"}).structured_content["items"]
    clusters = {a["account_id"]: (a["name"], a["assets"]) for a in items
                if a["provider"] == "KUBERNETES"}
    assert clusters == {"kind-shop": ("kind-shop", 4), "prod-eks": ("context: prod-admin", 4)}
    found = bot.call_tool("find_assets", {"dataset": "k8s-view", "provider": "kubernetes",
                                          "limit": 50}).structured_content
    assert found["total"] == _expected(["kind", "eks"])["KUBERNETES"]["assets"]


@pytest.mark.parametrize("path", ["scans-arrays.ocsf.json", "scans-lines.ocsf.json",
                                  "scans.csv", "scans-cat.csv"])
def test_every_layout_of_the_seven_scans_loads_every_provider(
        analyst: ClientSession, path: str) -> None:
    out = loaded(analyst.call_tool("load_dataset", {"path": path, "name": "layout",
                                                    "replace": True}))
    assert providers_of(out["load_report"]) == _expected(ALL)
    assert out["assets"] == sum(c["assets"] for c in _expected(ALL).values())


def test_prowlers_own_examples_in_one_file_load_what_each_loads_alone(
        bot: ClientSession, analyst: ClientSession) -> None:
    alone: dict[str, dict[str, int]] = {}
    for provider, model in EXAMPLE_PROVIDERS.items():
        out = loaded(analyst.call_tool("load_dataset", {
            "path": f"example_output_{provider}.ocsf.json", "name": f"ex-{provider}",
            "replace": True}))
        alone[model] = providers_of(out["load_report"])[model]
    together = loaded(approved(bot, analyst, "load_dataset", {
        "path": "examples.ocsf.json", "name": "examples", "replace": True}))
    report = together["load_report"]
    assert providers_of(report) == alone
    assert alone["GCP"]["assets"] > 0 and alone["KUBERNETES"]["assets"] > 0
    assert report["records"] == (report["skipped"] + report["duplicates_merged"]
                                 + report["findings"] + report["passed_checks"]
                                 + report["manual_checks"])
    assert report["renamed"] and report["kept_apart"]  # placeholders shared: named


def test_a_strict_load_of_concatenated_scans_succeeds(analyst: ClientSession) -> None:
    out = loaded(analyst.call_tool("load_dataset", {"path": "examples.ocsf.json",
                                                    "name": "strict", "strict": True,
                                                    "replace": True}))
    assert set(out["load_report"]["providers"]) == set(EXAMPLE_PROVIDERS.values())


# -- attacks: nothing vanishes or merges silently ----------------------------------------------


def test_another_providers_newer_results_cannot_hide_failures_by_reusing_their_ids(
        bot: ClientSession, analyst: ClientSession) -> None:
    out = loaded(approved(bot, analyst, "load_dataset", {
        "path": "shadow-other.ocsf.json", "name": "shadow-other", "replace": True}))
    report = out["load_report"]
    assert report["duplicates_merged"] == 0
    assert report["providers"]["AWS"]["findings"] == _expected(["aws"])["AWS"]["findings"]
    assert [r["loaded_as"] for r in report["renamed"]] == [
        f"{rec['finding_info']['uid']}#2" for rec in ocsf("aws")]
    findings = analyst.call_tool("list_findings", {"dataset": "shadow-other", "limit": 50}
                                 ).structured_content
    assert {f["id"] for f in findings["items"]} >= {
        rec["finding_info"]["uid"] for rec in ocsf("aws") if rec["status_code"] == "FAIL"}


def test_a_rescan_that_hides_a_failure_is_counted_and_named(
        bot: ClientSession, analyst: ClientSession) -> None:
    out = loaded(approved(bot, analyst, "load_dataset", {
        "path": "shadow-same.ocsf.json", "name": "shadow-same", "replace": True}))
    report = out["load_report"]
    assert report["duplicates_merged"] == 1
    assert report["merged"] == [{"finding_id": ocsf("aws")[0]["finding_info"]["uid"],
                                 "records": [0, 3], "count": 2, "kept": 3}]
    assert report["warnings"][0].startswith("AWS account 111122223333 appears in more than "
                                            "one scan")


def test_a_resource_or_account_another_provider_claims_is_kept_apart_and_named(
        bot: ClientSession, analyst: ClientSession) -> None:
    out = loaded(approved(bot, analyst, "load_dataset", {
        "path": "claim.ocsf.json", "name": "claim", "replace": True}))
    report = out["load_report"]
    assert {"id": "arn:aws:s3:::shop-media", "loaded_as": [
        "github/111122223333/arn:aws:s3:::shop-media",
        "aws/111122223333/arn:aws:s3:::shop-media"], "count": 2} in report["kept_apart"]
    assert {"id": "111122223333", "loaded_as": ["account:github/111122223333",
                                                "account:aws/111122223333"], "count": 2} \
        in report["kept_apart"]
    bucket = bot.call_tool("get_asset", {"dataset": "claim",
                                         "ref": "aws/111122223333/arn:aws:s3:::shop-media"})
    assert (bucket.structured_content["name"], bucket.structured_content["provider"]) == (
        "shop-media", "AWS")
    by_arn = bot.call_tool("get_asset", {"dataset": "claim", "ref": "arn:aws:s3:::shop-media"})
    assert by_arn.is_error and "more than one asset" in by_arn.content[0].text
    accounts = analyst.call_tool("list_accounts", {"dataset": "claim"}).structured_content
    assert sorted((a["provider"], a["account_id"]) for a in accounts["items"]) == [
        ("AWS", "111122223333"), ("OTHER", "111122223333")]


def test_a_csv_whose_second_header_reorders_columns_is_refused_and_changes_nothing(
        bot: ClientSession, analyst: ClientSession) -> None:
    before = analyst.call_tool("list_datasets", {}).structured_content
    result = approved(bot, analyst, "load_dataset", {"path": "mixed-header.csv",
                                                     "name": "mixed"})
    assert result.is_error
    assert "columns in another order" in result.content[0].text
    assert analyst.call_tool("list_datasets", {}).structured_content["datasets"] == \
        before["datasets"]


def test_a_flood_of_provider_words_gives_a_bounded_report(analyst: ClientSession) -> None:
    out = loaded(analyst.call_tool("load_dataset", {"path": "flood.ocsf.json", "name": "flood",
                                                    "replace": True}))
    report = out["load_report"]
    other = report["providers"]["OTHER"]
    assert other["records"] == 60 and 0 < len(other["as_written"]) <= 50
    assert max(map(len, other["as_written"])) <= 64
    assert any(w.startswith("60 result(s) name a provider") and w.endswith(
        "kept in each asset's metadata.provider") for w in report["warnings"])
    assert [len(k["loaded_as"]) for k in report["kept_apart"]] == [20, 20]  # of 60 each
    assert len(json.dumps(report)) < 40_000


def test_the_analyst_sees_the_counts_the_assistant_loaded(
        bot: ClientSession, analyst: ClientSession) -> None:
    loaded(approved(bot, analyst, "load_dataset", {"path": "scans-cat.csv",
                                                   "name": "shared", "replace": True}))
    mine = analyst.call_tool("dataset_summary", {"dataset": "shared"}).structured_content
    theirs = bot.call_tool("dataset_summary", {"dataset": "shared"}).structured_content
    assert mine["providers"] == theirs["providers"] == {
        p: c["assets"] for p, c in _expected(ALL).items()}
    assert mine["findings"] == sum(c["findings"] for c in _expected(ALL).values())
