"""Prowler scans of every provider, alone and together in one file: Kubernetes loads as
KUBERNETES with its cluster and namespaces, a file holding several scans (one JSON array,
arrays one after another, JSON lines, CSVs concatenated) keeps every provider's assets and
findings, nothing merges across checks, resources, providers or accounts, and what a load
merges, renames or keeps apart is counted and named in the load report.

Files: Prowler's own example outputs (``data/prowler-examples``: placeholders for ids, so many
results share one) and small scans of seven providers in Prowler 5's layouts
(``data/prowler-scans``, written by ``prowler_scans.py``)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import (
    Dataset,
    DatasetLoadError,
    ReferenceNotFoundError,
    list_accounts,
    load_path,
)
from cloudg_nb.estate.formats.prowler_csv import read_prowler_csv_by_row

from .prowler_scans import SCANS, csv_rows, ocsf, write_csv

DATA = Path(__file__).resolve().parents[1] / "data"
EXAMPLES = DATA / "prowler-examples"
SCAN_FILES = DATA / "prowler-scans"
EXAMPLE_PROVIDERS = {"aws": "AWS", "azure": "AZURE", "gcp": "GCP", "kubernetes": "KUBERNETES"}


def _example(provider: str, fmt: str) -> Path:
    return EXAMPLES / f"example_output_{provider}.{fmt}"


def _counts(ds: Dataset) -> dict[str, tuple[int, int]]:
    """Per provider: (assets, findings) of a loaded dataset, findings by their asset."""
    providers = dict(zip(ds.assets["id"], ds.assets["provider"], strict=True))
    assets = Counter(ds.assets["provider"])
    findings = Counter(providers[r] for r in ds.findings["resource_id"])
    return {p: (assets[p], findings[p]) for p in sorted(set(assets) | set(findings))}


def _accounted(report: dict[str, Any]) -> int:
    return (report["skipped"] + report["duplicates_merged"] + report["findings"]
            + report["passed_checks"] + report["manual_checks"])


def _write_json(path: Path, records: Any) -> Path:
    path.write_text(json.dumps(records))
    return path


# -- Kubernetes is a provider ----------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["ocsf.json", "csv"])
def test_prowlers_kubernetes_example_loads_as_provider_kubernetes(fmt: str) -> None:
    ds = load_path(_example("kubernetes", fmt))
    assert set(ds.assets["provider"]) == {"KUBERNETES"}
    report = ds.load_report
    assert report["providers"]["KUBERNETES"]["records"] == report["records"] > 0


def test_kubernetes_ocsf_without_cloud_names_its_cluster_from_the_finding_uid() -> None:
    ds = load_path(SCAN_FILES / "kind.ocsf.json")  # Prowler 5.4: no cloud, no provider
    a = ds.assets.set_index("id")
    assert (a.at["account:kind-shop", "asset_type"], a.at["account:kind-shop", "provider"]
            ) == ("KUBERNETES_CLUSTER", "KUBERNETES")
    pod = a.loc["0d3e2f1a-9b8c-4d7e-a6f5-4e3d2c1b0a9f"]
    assert (pod["provider"], pod["account_id"], pod["region"], pod["asset_type"]) == (
        "KUBERNETES", "kind-shop", "namespace: shop", "CONTAINER_WORKLOAD")


def test_kubernetes_ocsf_of_prowler_5_19_names_its_context_as_the_cluster_name() -> None:
    a = load_path(SCAN_FILES / "eks.ocsf.json").assets.set_index("id")
    assert (a.at["account:prod-eks", "name"], a.at["account:prod-eks", "provider"]) == (
        "context: prod-admin", "KUBERNETES")
    role = a.loc["f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9"]
    assert (role["account_id"], role["region"]) == ("prod-eks", "namespace: cluster-wide")


@pytest.mark.parametrize(("scan", "columns"), [
    ("kind", ["id", "provider", "account_id", "region", "asset_type"]),  # (5.4 OCSF: no
    ("eks", ["id", "name", "provider", "account_id", "region", "asset_type"])])  # context)
def test_a_kubernetes_scan_loads_alike_from_ocsf_and_csv(scan: str, columns: list[str]
                                                         ) -> None:
    from_json = load_path(SCAN_FILES / f"{scan}.ocsf.json")
    from_csv = load_path(SCAN_FILES / f"{scan}.csv")
    assert from_json.assets[columns].to_dict("records") == \
        from_csv.assets[columns].to_dict("records")
    assert sorted(from_json.findings["id"]) == sorted(from_csv.findings["id"])


def test_a_kubernetes_record_with_only_its_namespace_still_loads_as_kubernetes(
        tmp_path: Path) -> None:
    rec = ocsf("kind")[0]
    rec["finding_info"]["uid"] = "finding-1"  # no prowler-kubernetes-... prefix
    del rec["metadata"]["profiles"]
    ds = load_path(_write_json(tmp_path / "k.ocsf.json", [rec]))
    assert ds.assets["provider"].tolist() == ["KUBERNETES"]
    assert ds.load_report["providers"] == {
        "KUBERNETES": {"records": 1, "assets": 1, "findings": 1}}


# -- every scan alone, and all together ------------------------------------------------------


@pytest.mark.parametrize("provider", sorted(EXAMPLE_PROVIDERS))
@pytest.mark.parametrize("fmt", ["ocsf.json", "csv"])
def test_each_prowler_example_loads_every_result_and_accounts_for_each_record(
        provider: str, fmt: str) -> None:
    path = _example(provider, fmt)
    ds = load_path(path)
    report = ds.load_report
    assert set(ds.assets["provider"]) == {EXAMPLE_PROVIDERS[provider]}
    assert report["records"] == _accounted(report)
    assert len(ds.findings) == report["findings"]
    merged = {r for m in report.get("merged", []) for r in m["records"] if r != m["kept"]}
    assert len(merged) == report["duplicates_merged"]  # each merged record is named


def test_prowlers_examples_merge_only_results_that_are_the_same_check_and_resource() -> None:
    # GCP: three results of one check on the one firewall '<uid>' (the same result as far
    # as the file can tell): merged to the newest; AWS, Azure, Kubernetes: each check kept
    for provider, merged in (("aws", 0), ("azure", 0), ("kubernetes", 0), ("gcp", 2)):
        report = load_path(_example(provider, "ocsf.json")).load_report
        assert report["duplicates_merged"] == merged, provider
    gcp = load_path(_example("gcp", "ocsf.json")).load_report
    assert gcp["merged"] == [{"finding_id": "<finding_uid>", "records": [2, 3, 4],
                              "count": 3, "kept": 4}]


def _examples_as(tmp_path: Path, layout: str) -> Path:
    """The four OCSF examples in one file: ``array`` (one JSON array), ``arrays`` (one
    after another, as ``cat`` gives) or ``lines`` (JSON lines)."""
    scans = [json.loads(_example(p, "ocsf.json").read_text()) for p in sorted(EXAMPLE_PROVIDERS)]
    path = tmp_path / f"examples-{layout}.ocsf.json"
    if layout == "array":
        path.write_text(json.dumps([r for scan in scans for r in scan]))
    elif layout == "arrays":
        path.write_text("".join(json.dumps(scan, indent=4) for scan in scans))
    else:
        path.write_text("\n".join(json.dumps(r) for scan in scans for r in scan) + "\n")
    return path


@pytest.mark.parametrize("layout", ["array", "arrays", "lines"])
def test_prowlers_four_examples_in_one_file_keep_every_providers_assets_and_findings(
        tmp_path: Path, layout: str) -> None:
    alone = {p: _counts(load_path(_example(p, "ocsf.json"))) for p in EXAMPLE_PROVIDERS}
    together = load_path(_examples_as(tmp_path, layout))
    expected = {EXAMPLE_PROVIDERS[p]: alone[p][EXAMPLE_PROVIDERS[p]] for p in alone}
    assert _counts(together) == expected
    assert together.load_report["records"] == _accounted(together.load_report) == 21


def test_several_arrays_in_one_file_are_read_and_said(tmp_path: Path) -> None:
    report = load_path(_examples_as(tmp_path, "arrays")).load_report
    assert report["records"] == 21
    assert any("4 JSON arrays one after another" in w for w in report["warnings"])


def test_prowlers_csv_examples_concatenated_keep_every_provider(tmp_path: Path) -> None:
    path = tmp_path / "examples.csv"
    path.write_text("".join(_example(p, "csv").read_text() for p in sorted(EXAMPLE_PROVIDERS)))
    ds = load_path(path)
    alone = {EXAMPLE_PROVIDERS[p]: _counts(load_path(_example(p, "csv")))[EXAMPLE_PROVIDERS[p]]
             for p in EXAMPLE_PROVIDERS}
    assert _counts(ds) == alone
    assert any("header is repeated 3 time(s)" in w for w in ds.load_report["warnings"])


def _sum_alone(fmt: str) -> dict[str, dict[str, int]]:
    total: dict[str, Counter[str]] = {}
    for scan in SCANS:
        for provider, line in load_path(SCAN_FILES / f"{scan}.{fmt}").load_report[
                "providers"].items():
            total.setdefault(provider, Counter()).update(
                {k: v for k, v in line.items() if k != "as_written"})
    return {p: dict(c) for p, c in total.items()}


def _all_scans(tmp_path: Path, layout: str) -> Path:
    if layout == "csv":
        return write_csv(tmp_path / "scans.csv", list(SCANS))
    if layout == "csv-cat":
        return write_csv(tmp_path / "scans.csv", list(SCANS), header_each=True)
    path = tmp_path / "scans.ocsf.json"
    if layout == "array":
        path.write_text(json.dumps([r for s in SCANS for r in ocsf(s)]))
    elif layout == "arrays":
        path.write_text("\n".join(json.dumps(ocsf(s)) for s in SCANS))
    else:
        path.write_text("\n".join(json.dumps(r) for s in SCANS for r in ocsf(s)))
    return path


@pytest.mark.parametrize("layout", ["array", "arrays", "lines", "csv", "csv-cat"])
def test_seven_scans_in_one_file_load_what_each_loads_alone(tmp_path: Path,
                                                            layout: str) -> None:
    fmt = "csv" if layout.startswith("csv") else "ocsf.json"
    ds = load_path(_all_scans(tmp_path, layout))
    got = {p: {k: v for k, v in line.items() if k != "as_written"}
           for p, line in ds.load_report["providers"].items()}
    assert got == _sum_alone(fmt)
    assert set(got) == {"AWS", "AZURE", "GCP", "KUBERNETES", "OTHER"}
    assert ds.load_report["providers"]["OTHER"]["as_written"] == ["github", "m365"]
    assert len(ds.assets) == sum(len(load_path(SCAN_FILES / f"{s}.{fmt}").assets)
                                 for s in SCANS)


def test_the_column_path_loads_concatenated_csvs_like_the_row_path(tmp_path: Path) -> None:
    path = _all_scans(tmp_path, "csv-cat")
    by_row = read_prowler_csv_by_row(path)
    ds = load_path(path)
    assert ds.load_report == by_row.load_report
    assert ds.assets["id"].tolist() == by_row.assets["id"].tolist()


# -- nothing merges across providers or accounts ---------------------------------------------


def test_one_resource_id_in_two_clusters_is_two_assets_named_in_the_report(
        tmp_path: Path) -> None:
    ds = load_path(_write_json(tmp_path / "k8s.ocsf.json", [*ocsf("kind"), *ocsf("eks")]))
    ids = set(ds.assets["id"])
    assert {"kubernetes/kind-shop/kube-system/kubelet-config",
            "kubernetes/prod-eks/kube-system/kubelet-config"} <= ids
    assert ds.load_report["kept_apart"] == [{"id": "kubelet-config", "loaded_as": [
        "kubernetes/kind-shop/kube-system/kubelet-config",
        "kubernetes/prod-eks/kube-system/kubelet-config"], "count": 2}]
    assert ds.load_report["assets_kept_apart"] == 1


def test_one_resource_id_in_two_namespaces_of_a_cluster_is_two_assets(tmp_path: Path) -> None:
    first, second = ocsf("kind")[0], ocsf("kind")[0]
    second["resources"][0]["namespace"] = "shop"
    second["finding_info"]["uid"] += "-again"
    ds = load_path(_write_json(tmp_path / "k8s.ocsf.json", [first, second]))
    assert sorted(ds.findings["resource_id"]) == [
        "kubernetes/kind-shop/kube-system/8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e",
        "kubernetes/kind-shop/shop/8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e"]


@pytest.mark.parametrize("account", ["<account_uid>", None])
def test_scans_of_two_providers_sharing_a_placeholder_or_no_account_keep_their_assets(
        tmp_path: Path, account: str | None) -> None:
    aws, azure = ocsf("aws"), ocsf("azure")
    for rec in (*aws, *azure):
        rec["cloud"]["account"]["uid"] = account
        rec["unmapped"]["provider_uid"] = account
    aws[0]["resources"][0]["uid"] = azure[0]["resources"][0]["uid"] = "<resource_uid>"
    records = [*aws, *azure]
    ds = load_path(_write_json(tmp_path / "two.ocsf.json", records))
    assert _counts(ds) == {"AWS": (4 if account else 3, 2), "AZURE": (3 if account else 2, 2)}
    if account:
        assert {"account:aws/<account_uid>", "account:azure/<account_uid>"} <= set(
            ds.assets["id"])
    report = ds.load_report
    assert report["records"] == _accounted(report) and report["duplicates_merged"] == 0
    assert report["kept_apart"][0]["id"] == "<resource_uid>"


def test_a_pseudo_resource_of_two_subscriptions_is_an_asset_of_each(tmp_path: Path) -> None:
    other = copy.deepcopy(ocsf("azure"))
    for rec in other:
        rec["cloud"]["account"]["uid"] = "0f0e0d0c-0b0a-4909-8807-060504030201"
        rec["finding_info"]["uid"] = rec["finding_info"]["uid"].replace(
            SCANS["azure"]["account"], "0f0e0d0c-0b0a-4909-8807-060504030201")
    ds = load_path(_write_json(tmp_path / "subs.ocsf.json", [*ocsf("azure"), *other]))
    insights = ds.assets[ds.assets["name"] == "AppInsights"]
    assert sorted(insights["account_id"]) == ["0f0e0d0c-0b0a-4909-8807-060504030201",
                                              SCANS["azure"]["account"]]
    assert len(ds.findings) == 4


# -- repeated results: merged when they are one, renamed when they are not -------------------


def test_the_same_scan_twice_merges_each_result_to_the_newest_and_names_them(
        tmp_path: Path) -> None:
    later = copy.deepcopy(ocsf("aws"))
    for rec in later:
        rec["time_dt"] = "2026-03-09T09:00:00.000000"
    later[0]["status_code"] = "PASS"  # fixed a week later
    ds = load_path(_write_json(tmp_path / "rescan.ocsf.json", [*ocsf("aws"), *later]))
    report = ds.load_report
    assert report["duplicates_merged"] == 3
    assert [(m["records"], m["kept"]) for m in report["merged"]] == [
        ([0, 3], 3), ([1, 4], 4), ([2, 5], 5)]
    assert len(ds.findings) == 1
    assert report["warnings"][0].startswith("AWS account 111122223333 appears in more than "
                                            "one scan (2026-03-02T09:00:00.000000 .. "
                                            "2026-03-09T09:00:00.000000): 3 repeated")


def test_results_sharing_a_finding_id_are_each_kept_under_a_new_id(tmp_path: Path) -> None:
    records = copy.deepcopy(ocsf("aws"))
    for rec in records:
        rec["finding_info"]["uid"] = "<finding_uid>"
    ds = load_path(_write_json(tmp_path / "placeholder.ocsf.json", records))
    assert sorted(ds.findings["id"]) == ["<finding_uid>", "<finding_uid>#2"]
    report = ds.load_report
    assert report["finding_ids_renamed"] == 2
    assert report["renamed"] == [
        {"finding_id": "<finding_uid>", "loaded_as": "<finding_uid>#2", "records": [1],
         "count": 1},
        {"finding_id": "<finding_uid>", "loaded_as": "<finding_uid>#3", "records": [2],
         "count": 1}]


def test_a_new_id_never_takes_an_id_the_file_uses(tmp_path: Path) -> None:
    a, b, c = copy.deepcopy(ocsf("aws"))
    a["finding_info"]["uid"] = b["finding_info"]["uid"] = "x"
    c["finding_info"]["uid"] = "x#2"
    b["status_code"] = "FAIL"
    ds = load_path(_write_json(tmp_path / "taken.ocsf.json", [a, b, c]))
    assert sorted(ds.findings["id"]) == ["x", "x#3"]


def test_merging_and_renaming_are_no_strict_mode_failures(tmp_path: Path) -> None:
    ds = load_path(_examples_as(tmp_path, "array"), strict=True)
    assert ds.load_report["finding_ids_renamed"] > 0


# -- providers the model has no name for -----------------------------------------------------


@pytest.mark.parametrize("fmt", ["ocsf.json", "csv"])
def test_m365_and_github_load_as_other_named_in_the_report_and_the_assets(
        tmp_path: Path, fmt: str) -> None:
    if fmt == "csv":
        path = write_csv(tmp_path / "other.csv", ["m365", "github"])
    else:
        path = _write_json(tmp_path / "other.ocsf.json", [*ocsf("m365"), *ocsf("github")])
    ds = load_path(path)
    assert ds.load_report["providers"] == {"OTHER": {
        "records": 3, "assets": 5, "findings": 2, "as_written": ["github", "m365"]}}
    words = {a: (m or {}).get("provider") for a, m in zip(ds.assets["id"],
                                                           ds.assets["metadata"], strict=True)}
    assert words["612345678"] == "github" and words["account:contoso.onmicrosoft.com"] == "m365"
    assert any("github: 1, m365: 2" in w for w in ds.load_report["warnings"])


# -- skip reasons in the format's own words --------------------------------------------------


def test_ocsf_skips_name_ocsf_fields(tmp_path: Path) -> None:
    rec = ocsf("aws")[0]
    rec["resources"] = []
    report = load_path(_write_json(tmp_path / "bad.ocsf.json", [rec, *ocsf("aws")[1:]])
                       ).load_report
    assert report["skipped_records"] == [{"index": 0, "field": "resources", "reason":
                                          "missing or empty: the finding names no resource"}]


@pytest.mark.parametrize(("cells", "field", "reason"), [
    ({"RESOURCE_UID": "", "RESOURCE_NAME": ""}, "RESOURCE_UID",
     "empty, and so is RESOURCE_NAME: the row names no resource"),
    ({"FINDING_UID": ""}, "FINDING_UID", "empty: the row has no finding id"),
    ({"STATUS": "MAYBE"}, "STATUS", "empty or not PASS, FAIL or MANUAL"),
])
def test_csv_skips_name_csv_columns(tmp_path: Path, cells: dict[str, str], field: str,
                                    reason: str) -> None:
    rows = csv_rows("aws")
    rows[1].update(cells)
    path = tmp_path / "bad.csv"
    header = ";".join(rows[0])
    path.write_text("\n".join([header, *(";".join(r.values()) for r in rows)]) + "\n")
    report = load_path(path).load_report
    assert report["skipped_records"] == [{"index": 1, "field": field, "reason": reason}]
    assert report == read_prowler_csv_by_row(path).load_report


def test_a_concatenated_csv_whose_second_header_has_other_columns_is_refused(
        tmp_path: Path) -> None:
    first = write_csv(tmp_path / "a.csv", ["aws"]).read_text()
    lines = write_csv(tmp_path / "b.csv", ["gcp"]).read_text().splitlines()
    header = lines[0].split(";")
    header[13], header[14] = header[14], header[13]  # STATUS <-> STATUS_EXTENDED
    path = tmp_path / "mixed.csv"
    path.write_text(first + ";".join(header) + "\n" + "\n".join(lines[1:]) + "\n")
    for read in (load_path, read_prowler_csv_by_row):
        with pytest.raises(DatasetLoadError) as err:
            read(path)
        assert err.value.data["index"] == 3
        assert "columns in another order" in err.value.problem


# -- what the other views show ---------------------------------------------------------------


def test_list_accounts_shows_each_providers_account_and_each_cluster(tmp_path: Path) -> None:
    ds = load_path(_all_scans(tmp_path, "array"))
    accounts = list_accounts(ds)
    assert sorted(zip(accounts["provider"], accounts["account_id"], accounts["name"],
                      strict=True)) == [
        ("AWS", "111122223333", "shop-prod"),
        ("AZURE", SCANS["azure"]["account"], "shop-subscription"),
        ("GCP", "shop-prod-4711", "shop-prod"),
        ("KUBERNETES", "kind-shop", "kind-shop"),
        ("KUBERNETES", "prod-eks", "context: prod-admin"),
        ("OTHER", "contoso.onmicrosoft.com", "contoso.onmicrosoft.com"),
        ("OTHER", "shop-org", "shop-org")]


def test_list_accounts_keeps_one_account_id_of_two_providers_apart(tmp_path: Path) -> None:
    aws, gcp = ocsf("aws"), ocsf("gcp")
    for rec in (*aws, *gcp):
        rec["cloud"]["account"]["uid"] = rec["unmapped"]["provider_uid"] = "<account_uid>"
    accounts = list_accounts(load_path(_write_json(tmp_path / "two.ocsf.json", [*aws, *gcp])))
    assert sorted(zip(accounts["provider"], accounts["assets"], strict=True)) == [
        ("AWS", 4), ("GCP", 3)]


# -- a file cannot flood the report ----------------------------------------------------------


def test_a_result_repeated_many_times_is_one_merge_entry_of_bounded_size(
        tmp_path: Path) -> None:
    rec = ocsf("aws")[0]
    ds = load_path(_write_json(tmp_path / "many.ocsf.json", [rec] * 300))
    report = ds.load_report
    assert report["duplicates_merged"] == 299 and len(ds.findings) == 1
    (entry,) = report["merged"]
    assert (len(entry["records"]), entry["count"], entry["kept"]) == (20, 300, 299)


def test_rescans_of_many_accounts_are_warned_about_ten_at_a_time(tmp_path: Path) -> None:
    records = []
    for n in range(15):
        for day in (2, 9):
            rec = ocsf("aws")[0]
            rec["cloud"]["account"]["uid"] = f"1111222233{n:02d}"
            rec["finding_info"]["uid"] += f"-{n}"
            rec["time_dt"] = f"2026-03-0{day}T09:00:00"
            records.append(rec)
    warnings = load_path(_write_json(tmp_path / "rescans.ocsf.json", records)).load_report[
        "warnings"]
    assert sum("appears in more than one scan" in w for w in warnings) == 10
    assert "5 more accounts appear more than once: 5 more repeated" in warnings[10]


def test_provider_words_are_quoted_short_and_listed_up_to_fifty(tmp_path: Path) -> None:
    records = []
    for n in range(60):
        rec = ocsf("github")[0]
        rec["cloud"]["provider"] = f"{n:02d}{'x' * 200}"
        rec["finding_info"]["uid"] = f"finding-{n}"
        records.append(rec)
    report = load_path(_write_json(tmp_path / "words.ocsf.json", records)).load_report
    words = report["providers"]["OTHER"]["as_written"]
    assert len(words) == 50 and max(map(len, words)) == 64
    assert report["providers"]["OTHER"]["records"] == 60
    assert max(map(len, report["warnings"])) < 1200


def test_an_arn_a_second_provider_also_claims_is_not_resolved_to_either(
        tmp_path: Path) -> None:
    github = ocsf("github")
    github[0]["resources"][0].update(uid="arn:aws:s3:::shop-media", name="harmless")
    ds = load_path(_write_json(tmp_path / "claim.ocsf.json", [*github, *ocsf("aws")]))
    with pytest.raises(ReferenceNotFoundError) as err:
        ds.resolve("arn:aws:s3:::shop-media")
    assert err.value.data["candidates"] == ["github/shop-org/arn:aws:s3:::shop-media",
                                            "aws/111122223333/arn:aws:s3:::shop-media"]
    bucket = ds.assets.iloc[ds.resolve("aws/111122223333/arn:aws:s3:::shop-media")]
    assert (bucket["name"], bucket["provider"]) == ("shop-media", "AWS")
