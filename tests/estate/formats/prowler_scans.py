"""Small Prowler 5 scans of seven providers, in the field layouts Prowler writes
(``prowler/lib/outputs/ocsf/ocsf.py``, ``csv/csv.py``, ``finding.py``), kept as
``tests/estate/data/prowler-scans/<scan>.ocsf.json`` and ``<scan>.csv``; ``python
prowler_scans.py`` writes them again.

- aws, azure, gcp: ``cloud`` with the account, finding uids
  ``prowler-<provider>-<check>-<account>-<region>-<resource name>``.
- kind (Kubernetes, Prowler 5.4 layout): no ``cloud`` and no ``unmapped.provider``; the
  cluster is named only in the finding uid (``...-<cluster>-namespace: <ns>-<name>``), the
  namespace on the resource; CSV ACCOUNT_UID the cluster, ACCOUNT_NAME ``context: <ctx>``.
- eks (Kubernetes, Prowler 5.19+ layout): also ``unmapped.provider`` / ``provider_uid``.
- m365, github: providers the model has no name for (they load as OTHER).

Both Kubernetes clusters report a ``kubelet-config`` resource with no uid (Prowler then uses
the name), so the same resource id is given under two clusters.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1] / "data" / "prowler-scans"
VERSION = "5.19.0"
TIME = {"aws": "2026-03-02T09:00:00.000000", "azure": "2026-03-02T09:05:00.000000",
        "gcp": "2026-03-02T09:10:00.000000", "kind": "2026-03-02T09:15:00.000000",
        "eks": "2026-03-02T09:20:00.000000", "m365": "2026-03-02T09:25:00.000000",
        "github": "2026-03-02T09:30:00.000000"}
EPOCH = {k: 1772442000 + 300 * i for i, k in enumerate(TIME)}

SUB = "9c1f2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f"
#: Per scan: provider, account uid, account name, and its results (check, status, severity,
#: service, resource type, resource uid ('' = none: Prowler uses the name), resource name,
#: region or Kubernetes namespace, categories).
SCANS: dict[str, dict[str, Any]] = {
    "aws": {"provider": "aws", "account": "111122223333", "name": "shop-prod", "results": [
        ("s3_bucket_public_access", "FAIL", "critical", "s3", "AwsS3Bucket",
         "arn:aws:s3:::shop-media", "shop-media", "eu-west-1", []),
        ("ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22", "FAIL", "high",
         "ec2", "AwsEc2SecurityGroup",
         "arn:aws:ec2:eu-west-1:111122223333:security-group/sg-0a1b2c3d4e5f60718",
         "sg-0a1b2c3d4e5f60718", "eu-west-1", ["internet-exposed"]),
        ("iam_root_mfa_enabled", "PASS", "critical", "iam", "Other",
         "arn:aws:iam::111122223333:root", "<root_account>", "eu-west-1", []),
    ]},
    "azure": {"provider": "azure", "account": SUB, "name": "shop-subscription", "results": [
        ("storage_ensure_minimum_tls_version_12", "FAIL", "medium", "storage",
         "Microsoft.Storage/storageAccounts",
         f"/subscriptions/{SUB}/resourceGroups/shop/providers/Microsoft.Storage/"
         "storageAccounts/shopdata", "shopdata", "westeurope", []),
        ("appinsights_ensure_is_configured", "FAIL", "low", "appinsights",
         "Microsoft.Insights/components", "AppInsights", "AppInsights", "global", []),
    ]},
    "gcp": {"provider": "gcp", "account": "shop-prod-4711", "name": "shop-prod", "results": [
        ("compute_firewall_ssh_access_from_the_internet_allowed", "FAIL", "critical",
         "compute", "FirewallRule", "4817263549012345678", "allow-ssh", "global",
         ["internet-exposed"]),
        ("apikeys_key_exists", "PASS", "medium", "apikeys", "API Key", "shop-prod-4711",
         "shop-prod", "global", []),
    ]},
    "kind": {"provider": "kubernetes", "account": "kind-shop", "name": "context: kind-shop",
             "context": "kind-shop", "layout": "5.4", "results": [
        ("apiserver_always_pull_images_plugin", "FAIL", "medium", "apiserver",
         "KubernetesAPIServer", "8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e",
         "kube-apiserver-kind-shop-control-plane", "kube-system", ["cluster-security"]),
        ("core_minimize_privileged_containers", "FAIL", "high", "core", "Pod",
         "0d3e2f1a-9b8c-4d7e-a6f5-4e3d2c1b0a9f", "orders-7d9f8c6b5d-x2k9p", "shop", []),
        ("kubelet_disable_anonymous_auth", "FAIL", "high", "kubelet", "KubeletConfiguration",
         "", "kubelet-config", "kube-system", []),
    ]},
    "eks": {"provider": "kubernetes", "account": "prod-eks", "name": "context: prod-admin",
            "context": "prod-admin", "layout": "5.19", "results": [
        ("apiserver_anonymous_requests", "FAIL", "high", "apiserver", "KubernetesAPIServer",
         "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d", "kube-apiserver-ip-10-0-1-12", "kube-system",
         ["trustboundaries"]),
        ("rbac_minimize_wildcard_use_roles", "PASS", "high", "rbac", "ClusterRole",
         "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9", "admin", "cluster-wide", []),
        ("kubelet_disable_anonymous_auth", "FAIL", "high", "kubelet", "KubeletConfiguration",
         "", "kubelet-config", "kube-system", []),
    ]},
    "m365": {"provider": "m365", "account": "contoso.onmicrosoft.com",
             "name": "contoso.onmicrosoft.com", "results": [
        ("entra_admin_users_mfa_enabled", "FAIL", "high", "entra", "User",
         "2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e", "admin@contoso.onmicrosoft.com", "global",
         []),
        ("defender_antiphishing_policy_configured", "PASS", "medium", "defender",
         "Defender Anti-Phishing Policy", "Office365 AntiPhish Default",
         "Office365 AntiPhish Default", "global", []),
    ]},
    "github": {"provider": "github", "account": "shop-org", "name": "shop-org", "results": [
        ("repository_default_branch_protection_enabled", "FAIL", "high", "repository",
         "GitHubRepository", "612345678", "shop-org/web", "shop-org", []),
    ]},
}
_ACCOUNT_TYPES = {"aws": ("AWS Account", 10), "azure": ("Azure AD Account", 6),
                  "gcp": ("GCP Account", 5)}


def _region(scan: dict[str, Any], where: str) -> str:
    return f"namespace: {where}" if scan["provider"] == "kubernetes" else where


def _uid(scan: dict[str, Any], check: str, name: str, where: str) -> str:
    return (f"prowler-{scan['provider']}-{check}-{scan['account']}-"
            f"{_region(scan, where)}-{name}")


def ocsf(key: str) -> list[dict[str, Any]]:
    """The OCSF records of scan ``key``, as Prowler's OCSF writer lays them out."""
    scan = SCANS[key]
    k8s = scan["provider"] == "kubernetes"
    out = []
    for check, status, severity, service, rtype, uid, name, where, cats in scan["results"]:
        sev_id = {"critical": 5, "high": 4, "medium": 3, "low": 2}[severity]
        resource: dict[str, Any] = {
            "data": {"details": "", "metadata": {}}, "group": {"name": service}, "labels": [],
            "name": name, "type": rtype, "uid": uid or name}
        if k8s:
            resource["namespace"] = where
        else:
            resource.update(cloud_partition=scan["provider"], region=where)
        unmapped: dict[str, Any] = {
            "related_url": "", "categories": cats, "depends_on": [], "related_to": [],
            "additional_urls": [], "notes": "", "compliance": {"CIS-2.0": ["1.1"]},
            "scan_id": "019cb0a2-7c00-7000-8000-000000000001"}
        if scan.get("layout") != "5.4":
            unmapped.update(provider_uid=scan.get("context", scan["account"]),
                            provider=scan["provider"])
        rec: dict[str, Any] = {
            "message": f"{name}: {check} {status}.",
            "metadata": {"event_code": check,
                         "product": {"name": "Prowler", "uid": "prowler",
                                     "vendor_name": "Prowler", "version": VERSION},
                         "profiles": ["container", "datetime"] if k8s
                         else ["cloud", "datetime"], "version": "1.5.0"},
            "severity_id": sev_id, "severity": severity.capitalize(), "status": "New",
            "status_code": status, "status_detail": f"{name}: {check} {status}.",
            "status_id": 1, "unmapped": unmapped, "activity_name": "Create", "activity_id": 1,
            "finding_info": {"created_time": EPOCH[key], "created_time_dt": TIME[key],
                             "desc": f"{check} description.", "name": name,
                             "title": check.replace("_", " ").capitalize() + ".",
                             "types": [], "uid": _uid(scan, check, name, where)},
            "resources": [resource], "category_name": "Findings", "category_uid": 2,
            "class_name": "Detection Finding", "class_uid": 2004,
            "remediation": {"desc": f"Fix {check}.", "references": []},
            "risk_details": "", "time": EPOCH[key], "time_dt": TIME[key],
            "type_uid": 200401, "type_name": "Detection Finding: Create"}
        if not k8s:
            kind, kind_id = _ACCOUNT_TYPES.get(scan["provider"], ("Other", 99))
            rec["cloud"] = {"account": {"name": scan["name"], "type": kind, "type_id": kind_id,
                                        "uid": scan["account"], "labels": []},
                            "org": {}, "provider": scan["provider"], "region": where}
        out.append(rec)
    return out


CSV_COLUMNS = (
    "AUTH_METHOD", "TIMESTAMP", "ACCOUNT_UID", "ACCOUNT_NAME", "ACCOUNT_EMAIL",
    "ACCOUNT_ORGANIZATION_UID", "ACCOUNT_ORGANIZATION_NAME", "ACCOUNT_TAGS", "FINDING_UID",
    "PROVIDER", "CHECK_ID", "CHECK_TITLE", "CHECK_TYPE", "STATUS", "STATUS_EXTENDED", "MUTED",
    "SERVICE_NAME", "SUBSERVICE_NAME", "SEVERITY", "RESOURCE_TYPE", "RESOURCE_UID",
    "RESOURCE_NAME", "RESOURCE_DETAILS", "RESOURCE_TAGS", "PARTITION", "REGION", "DESCRIPTION",
    "RISK", "RELATED_URL", "REMEDIATION_RECOMMENDATION_TEXT", "REMEDIATION_RECOMMENDATION_URL",
    "REMEDIATION_CODE_NATIVEIAC", "REMEDIATION_CODE_TERRAFORM", "REMEDIATION_CODE_CLI",
    "REMEDIATION_CODE_OTHER", "COMPLIANCE", "CATEGORIES", "DEPENDS_ON", "RELATED_TO", "NOTES",
    "PROWLER_VERSION", "ADDITIONAL_URLS", "ACCOUNT_OU_UID", "ACCOUNT_OU_NAME")


def csv_rows(key: str) -> list[dict[str, str]]:
    """The CSV rows of scan ``key``, as Prowler's CSV writer fills them."""
    scan = SCANS[key]
    rows = []
    for check, status, severity, service, rtype, uid, name, where, cats in scan["results"]:
        row = dict.fromkeys(CSV_COLUMNS, "")
        row.update({
            "AUTH_METHOD": "kubeconfig" if scan["provider"] == "kubernetes" else "profile",
            "TIMESTAMP": TIME[key].replace("T", " "), "ACCOUNT_UID": scan["account"],
            "ACCOUNT_NAME": scan["name"], "FINDING_UID": _uid(scan, check, name, where),
            "PROVIDER": scan["provider"], "CHECK_ID": check,
            "CHECK_TITLE": check.replace("_", " ").capitalize() + ".", "STATUS": status,
            "STATUS_EXTENDED": f"{name}: {check} {status}.", "MUTED": "False",
            "SERVICE_NAME": service, "SEVERITY": severity, "RESOURCE_TYPE": rtype,
            "RESOURCE_UID": uid or name, "RESOURCE_NAME": name,
            "REGION": _region(scan, where), "DESCRIPTION": f"{check} description.",
            "REMEDIATION_RECOMMENDATION_TEXT": f"Fix {check}.", "COMPLIANCE": "CIS-2.0: 1.1",
            "CATEGORIES": ",".join(cats), "PROWLER_VERSION": VERSION})
        rows.append(row)
    return rows


def write_csv(path: Path, keys: list[str], *, header_each: bool = False) -> Path:
    """The CSV rows of ``keys`` in one file (``header_each``: each scan's header too, as
    ``cat`` of the scans' files gives)."""
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS, delimiter=";")
        for n, key in enumerate(keys):
            if n == 0 or header_each:
                writer.writeheader()
            writer.writerows(csv_rows(key))
    return path


def main() -> None:
    for key in SCANS:
        (HERE / f"{key}.ocsf.json").write_text(json.dumps(ocsf(key), indent=2) + "\n")
        write_csv(HERE / f"{key}.csv", [key])


if __name__ == "__main__":
    main()
