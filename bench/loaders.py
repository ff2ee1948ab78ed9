"""Loading Prowler output, side by side with pandas parsing the same file.

Generated ~``--mb`` MB JSON-OCSF and CSV files (each resource with every check of its type,
as Prowler writes them; and a CSV where every row is a resource of its own, the most assets such
a file holds); ``load_path`` vs ``pandas.read_json`` / ``read_csv`` in fresh processes, rounds
alternating the two (median wall and CPU time, peak RSS minus RSS before). Target: ≤ 3× pandas.
Run from the repository root: ``python bench/loaders.py [--mb 50] [--rounds 3] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TARGET_RATIO = 3.0
_SEVERITIES = (("critical", 5, 0.05), ("high", 4, 0.2), ("medium", 3, 0.4), ("low", 2, 0.25),
               ("informational", 1, 0.1))
_STATUSES = (("FAIL", 0.35), ("PASS", 0.6), ("MANUAL", 0.05))
#: (provider, service, Prowler resource type, uid template, the checks run on each resource
#: of the type): Prowler runs every check of a service on each of its resources, so one
#: resource gives several rows (a real account gives ~5-40; these give 2-6).
_TYPES = (
    ("aws", "ec2", "AwsEc2SecurityGroup", "arn:aws:ec2:{region}:{account}:security-group/sg-{hex}",
     ("ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22",
      "ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_3389",
      "ec2_securitygroup_allow_ingress_from_internet_to_all_ports",
      "ec2_securitygroup_default_restrict_traffic", "ec2_securitygroup_not_used")),
    ("aws", "ec2", "AwsEc2Instance", "arn:aws:ec2:{region}:{account}:instance/i-{hex}",
     ("ec2_instance_imdsv2_enabled", "ec2_instance_public_ip", "ec2_instance_managed_by_ssm",
      "ec2_instance_older_than_specific_days", "ec2_instance_profile_attached")),
    ("aws", "s3", "AwsS3Bucket", "arn:aws:s3:::{name}",
     ("s3_bucket_public_access", "s3_bucket_default_encryption", "s3_bucket_versioning_enabled",
      "s3_bucket_secure_transport_policy", "s3_bucket_server_access_logging_enabled",
      "s3_bucket_object_lock")),
    ("aws", "iam", "AwsIamRole", "arn:aws:iam::{account}:role/{name}",
     ("iam_role_administratoraccess_policy",
      "iam_role_cross_service_confused_deputy_prevention")),
    ("aws", "rds", "AwsRdsDbInstance", "arn:aws:rds:{region}:{account}:db:{name}",
     ("rds_instance_no_public_access", "rds_instance_storage_encrypted",
      "rds_instance_backup_enabled", "rds_instance_multi_az", "rds_instance_deletion_protection")),
    ("aws", "cloudtrail", "AwsCloudTrailTrail",
     "arn:aws:cloudtrail:{region}:{account}:trail/{name}",
     ("cloudtrail_multi_region_enabled", "cloudtrail_log_file_validation_enabled",
      "cloudtrail_kms_encryption_enabled", "cloudtrail_cloudwatch_logging_enabled")),
    ("aws", "kms", "AwsKmsKey", "arn:aws:kms:{region}:{account}:key/{uuid}",
     ("kms_cmk_rotation_enabled", "kms_cmk_are_used")),
    ("azure", "network", "Microsoft.Network/networkSecurityGroups",
     "/subscriptions/{uuid}/resourceGroups/rg-{word}/providers/Microsoft.Network/"
     "networkSecurityGroups/{name}",
     ("network_ssh_internet_access_restricted", "network_rdp_internet_access_restricted",
      "network_http_internet_access_restricted", "network_udp_internet_access_restricted")),
    ("azure", "storage", "Microsoft.Storage/storageAccounts",
     "/subscriptions/{uuid}/resourceGroups/rg-{word}/providers/Microsoft.Storage/"
     "storageAccounts/{word}{hex}",
     ("storage_secure_transfer_required", "storage_blob_public_access_level_is_disabled",
      "storage_default_network_access_rule_is_denied", "storage_ensure_minimum_tls_version_12",
      "storage_infrastructure_encryption_is_enabled")),
    ("gcp", "compute", "compute.googleapis.com/Firewall", "{digits}",
     ("compute_firewall_rdp_access_from_the_internet_allowed",
      "compute_firewall_ssh_access_from_the_internet_allowed")),
    ("gcp", "cloudstorage", "storage.googleapis.com/Bucket", "{name}",
     ("cloudstorage_bucket_public_access", "cloudstorage_bucket_uniform_bucket_level_access",
      "cloudstorage_bucket_log_retention_policy_lock")),
)
_REGIONS = {"aws": ("eu-west-1", "us-east-1", "ap-southeast-2", "eu-central-1"),
            "azure": ("westeurope", "eastus", "northeurope"),
            "gcp": ("europe-west1", "us-central1", "global")}
_ACCOUNTS = {"aws": ("123456789012", "210987654321", "555566667777"),
             "azure": ("5c1d2e3f-0000-4aaa-8bbb-0123456789ab",),
             "gcp": ("shop-prod-4711", "shop-dev-0815")}
_WORDS = ("payments", "billing", "search", "checkout", "ledger", "analytics", "reporting",
          "ingest", "catalog", "identity", "gateway", "worker", "cache", "queue", "frontend")
_CSV_HEADER = (
    "AUTH_METHOD;TIMESTAMP;ACCOUNT_UID;ACCOUNT_NAME;ACCOUNT_EMAIL;ACCOUNT_ORGANIZATION_UID;"
    "ACCOUNT_ORGANIZATION_NAME;ACCOUNT_TAGS;FINDING_UID;PROVIDER;CHECK_ID;CHECK_TITLE;"
    "CHECK_TYPE;STATUS;STATUS_EXTENDED;MUTED;SERVICE_NAME;SUBSERVICE_NAME;SEVERITY;"
    "RESOURCE_TYPE;RESOURCE_UID;RESOURCE_NAME;RESOURCE_DETAILS;RESOURCE_TAGS;PARTITION;REGION;"
    "DESCRIPTION;RISK;RELATED_URL;REMEDIATION_RECOMMENDATION_TEXT;"
    "REMEDIATION_RECOMMENDATION_URL;REMEDIATION_CODE_NATIVEIAC;REMEDIATION_CODE_TERRAFORM;"
    "REMEDIATION_CODE_CLI;REMEDIATION_CODE_OTHER;COMPLIANCE;CATEGORIES;DEPENDS_ON;RELATED_TO;"
    "NOTES;PROWLER_VERSION")
CSV_COLUMNS = _CSV_HEADER.split(";")


def _mapping(rnd: random.Random) -> dict[str, list[str]]:
    """A check's compliance mapping (Prowler's check metadata: the same on every result)."""
    out = {"CIS-2.0": [f"{rnd.randint(1, 5)}.{rnd.randint(1, 20)}"
                       for _ in range(rnd.randint(1, 2))],
           "ISO27001-2013": [f"A.{rnd.randint(5, 18)}.{rnd.randint(1, 4)}"]}
    if rnd.random() < 0.5:
        out["PCI-4.0"] = [f"{rnd.randint(1, 12)}.{rnd.randint(1, 8)}.1"]
    return out


_COMPLIANCE = {check: _mapping(random.Random(check)) for kind in _TYPES for check in kind[4]}


def _pick(rnd: random.Random, weighted: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    return rnd.choices(weighted, weights=[w[-1] for w in weighted])[0]


def _results(rnd: random.Random, *, resource_per_row: bool = False
             ) -> Iterator[dict[str, Any]]:
    """Check results without end: each resource with every check of its type (or, with
    ``resource_per_row``, one check of it: every row a resource of its own, the most assets
    a file of this size can hold)."""
    i = 0
    while True:
        provider, service, rtype, template, checks = rnd.choice(_TYPES)
        region = rnd.choice(_REGIONS[provider])
        account = rnd.choice(_ACCOUNTS[provider])
        name = f"{rnd.choice(_WORDS)}-{rnd.choice(['prod', 'stage', 'dev'])}-{i:06d}"
        uid = template.format(region=region, account=account, name=name,
                              word=rnd.choice(_WORDS), hex=f"{rnd.getrandbits(64):016x}",
                              digits=str(rnd.getrandbits(60)),
                              uuid=f"{rnd.getrandbits(32):08x}-0000-4aaa-8bbb-{i:012d}")
        tags = {"env": rnd.choice(["prod", "stage", "dev"]), "team": rnd.choice(_WORDS)}
        for check in (rnd.choice(checks),) if resource_per_row else checks:
            severity, severity_id, _ = _pick(rnd, _SEVERITIES)
            status = _pick(rnd, _STATUSES)[0]
            second = rnd.randint(0, 59)
            yield {
                "provider": provider, "service": service, "rtype": rtype, "check": check,
                "region": region, "account": account, "name": name, "uid": uid,
                "severity": severity, "severity_id": severity_id, "status": status,
                "muted": rnd.random() < 0.05,
                "time": f"2025-03-04T10:{second // 10:02d}:{second:02d}.123456+00:00",
                "fid": f"prowler-{provider}-{check}-{account}-{region}-{name}",
                "title": check.replace("_", " ").capitalize(),
                "detail": f"{name} {'fails' if status == 'FAIL' else 'passes'} {check} in "
                          f"{region}.",
                "compliance": _COMPLIANCE[check],
                "categories": ["internet-exposed"] if "internet" in check or "public" in check
                else [], "tags": tags}
            i += 1


def _ocsf(r: dict[str, Any]) -> dict[str, Any]:
    """The record as Prowler 5 writes it in JSON-OCSF."""
    return {
        "message": r["detail"],
        "metadata": {"event_code": r["check"], "product": {"name": "Prowler", "uid": "prowler",
                     "vendor_name": "Prowler", "version": "5.4.0"},
                     "profiles": ["cloud", "datetime"], "tenant_uid": "", "version": "1.4.0"},
        "severity_id": r["severity_id"], "severity": r["severity"].capitalize(),
        "status": "Suppressed" if r["muted"] else "New", "status_code": r["status"],
        "status_detail": r["detail"], "status_id": 3 if r["muted"] else 1,
        "unmapped": {"related_url": "", "categories": r["categories"], "depends_on": [],
                     "related_to": [], "notes": "", "compliance": r["compliance"],
                     "muted": r["muted"]},
        "activity_name": "Create", "activity_id": 1,
        "finding_info": {"created_time": 1741082400, "created_time_dt": r["time"],
                         "desc": f"Check {r['check']} on {r['service']}.", "product_uid": "prowler",
                         "title": r["title"], "types": ["Software and Configuration Checks"],
                         "uid": r["fid"]},
        "resources": [{"cloud_partition": "aws" if r["provider"] == "aws" else None,
                       "region": r["region"], "data": {"details": "", "metadata": {
                           "name": r["name"], "arn": r["uid"]}},
                       "group": {"name": r["service"]},
                       "labels": [f"{k}:{v}" for k, v in r["tags"].items()],
                       "name": r["name"], "type": r["rtype"], "uid": r["uid"]}],
        "category_name": "Findings", "category_uid": 2, "class_name": "Detection Finding",
        "class_uid": 2004,
        "cloud": {"account": {"name": f"acct-{r['account'][:6]}", "type": "AWS Account",
                              "type_id": 10, "uid": r["account"], "labels": []},
                  "org": {"name": "", "uid": ""}, "provider": r["provider"],
                  "region": r["region"]},
        "remediation": {"desc": f"Fix {r['check']} on the resource.",
                        "references": ["https://docs.prowler.com/"]},
        "risk_details": "An attacker could take advantage of the misconfiguration.",
        "time": 1741082400, "time_dt": r["time"], "type_uid": 200401, "type_name": "Create",
    }


def _csv_row(r: dict[str, Any]) -> str:
    values = dict.fromkeys(CSV_COLUMNS, "")
    values.update({
        "AUTH_METHOD": "profile: default", "TIMESTAMP": r["time"], "ACCOUNT_UID": r["account"],
        "ACCOUNT_NAME": f"acct-{r['account'][:6]}", "FINDING_UID": r["fid"],
        "PROVIDER": r["provider"], "CHECK_ID": r["check"], "CHECK_TITLE": r["title"],
        "CHECK_TYPE": "Software and Configuration Checks", "STATUS": r["status"],
        "STATUS_EXTENDED": r["detail"], "MUTED": str(r["muted"]), "SERVICE_NAME": r["service"],
        "SEVERITY": r["severity"], "RESOURCE_TYPE": r["rtype"], "RESOURCE_UID": r["uid"],
        "RESOURCE_NAME": r["name"],
        "RESOURCE_TAGS": " | ".join(f"{k}={v}" for k, v in r["tags"].items()),
        "PARTITION": "aws", "REGION": r["region"],
        "DESCRIPTION": f"Check {r['check']} on {r['service']}.",
        "RISK": "An attacker could take advantage of the misconfiguration.",
        "REMEDIATION_RECOMMENDATION_TEXT": f"Fix {r['check']} on the resource.",
        "REMEDIATION_RECOMMENDATION_URL": "https://docs.prowler.com/",
        "REMEDIATION_CODE_CLI": _cli(r),
        "COMPLIANCE": " | ".join(f"{k}: {', '.join(v)}" for k, v in r["compliance"].items()),
        "CATEGORIES": ",".join(r["categories"]), "PROWLER_VERSION": "5.4.0"})
    return ";".join(_cell(values[c]) for c in CSV_COLUMNS)


def _cli(r: dict[str, Any]) -> str:
    """A remediation command, quoted as Prowler's own are (the CSV writer then quotes it)."""
    if r["provider"] == "aws":
        return f'aws {r["service"]} update --resource "{r["name"]}" --set "{r["check"]}=true"'
    return f'{r["provider"]} {r["service"]} update --name "{r["name"]}" --set enabled=true'


def _cell(value: str) -> str:
    """``value`` as Python's csv writer (which Prowler uses) writes it with ``;``: quoted,
    its quotes doubled, when it holds the delimiter, a quote or a line end."""
    if any(c in value for c in ';"\n\r'):
        return '"' + value.replace('"', '""') + '"'
    return value


def generate(folder: Path, mb: float, seed: int = 7, *, resource_per_row: bool = False
             ) -> tuple[Path, Path, int, int]:
    """Write scan.ocsf.json and scan.csv of about ``mb`` MB each (the same results); their
    record counts."""
    target = int(mb * 1_000_000)
    ocsf_path, csv_path = folder / "scan.ocsf.json", folder / "scan.csv"
    results = _results(random.Random(seed), resource_per_row=resource_per_row)
    with ocsf_path.open("w") as fh:
        fh.write("[")
        size, n_json = 1, 0
        while size < target:
            text = ("," if n_json else "") + json.dumps(_ocsf(next(results)))
            fh.write(text)
            size += len(text)
            n_json += 1
        fh.write("]")
    n_csv = write_csv(csv_path, mb, seed, resource_per_row=resource_per_row)
    return ocsf_path, csv_path, n_json, n_csv


def write_csv(path: Path, mb: float, seed: int = 7, *, resource_per_row: bool = False) -> int:
    """Write a Prowler CSV of about ``mb`` MB; its row count."""
    target = int(mb * 1_000_000)
    results = _results(random.Random(seed), resource_per_row=resource_per_row)
    with path.open("w") as fh:
        header = ";".join(CSV_COLUMNS) + "\n"
        fh.write(header)
        size, rows = len(header), 0
        while size < target:
            line = _csv_row(next(results)) + "\n"
            fh.write(line)
            size += len(line)
            rows += 1
    return rows


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        found = re.search(r"VmRSS:\s+(\d+)", fh.read())
    return int(found.group(1)) / 1024 if found else 0.0


def _child(reader: str, path: str) -> None:
    """One measurement in this (fresh) process; prints {seconds, peak_mb, rows} as JSON."""
    import resource

    import pandas as pd

    from cloudg_nb.estate import load_path

    before = _rss_mb()
    start, cpu_start = time.perf_counter(), time.process_time()
    loaded: Any  # (kept until the clock stops: a user keeps what they load)
    assets = None
    if reader == "load_path":
        loaded = load_path(Path(path))
        rows, assets = len(loaded.findings), len(loaded.assets)
    elif reader == "csv row by row":  # the CSV reader before its column-wise path
        from cloudg_nb.estate.formats.prowler_csv import read_prowler_csv_by_row

        loaded = read_prowler_csv_by_row(Path(path))
        loaded.index  # noqa: B018  (load_path builds it too)
        rows = len(loaded.findings)
    elif reader == "pandas.read_json":
        loaded = pd.read_json(path)
        rows = len(loaded)
    else:
        loaded = pd.read_csv(path, sep=";")
        rows = len(loaded)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu_s": cpu, "peak_mb": max(peak - before, 0.0),
                      "rows": rows, "assets": assets}))
    del loaded


def _once(reader: str, path: Path) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, __file__, "--child", reader, str(path)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{reader} failed on {path.name}:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _summary(reader: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"reader": reader, "seconds": statistics.median(r["seconds"] for r in runs),
            "rounds_s": [round(r["seconds"], 3) for r in runs],
            "cpu_s": statistics.median(r["cpu_s"] for r in runs),
            "peak_mb": statistics.median(r["peak_mb"] for r in runs), "rows": runs[0]["rows"],
            "assets": runs[0].get("assets")}


def _measure_pair(reader: str, peer: str, path: Path, rounds: int
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Rounds alternate ours then the peer, so a busy (shared) machine slows both alike."""
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(_once(reader, path))
        theirs.append(_once(peer, path))
    return _summary(reader, ours), _summary(peer, theirs)


def run(mb: float, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cloudg-bench-loaders-") as tmp:
        ocsf_path, csv_path, n_json, n_csv = generate(Path(tmp), mb)
        spread = Path(tmp) / "resource-per-row.csv"
        n_spread = write_csv(spread, mb, resource_per_row=True)
        files = [("Prowler OCSF", ocsf_path, n_json, "load_path", "pandas.read_json"),
                 ("Prowler CSV", csv_path, n_csv, "load_path", "pandas.read_csv"),
                 ("CSV 1 row/res", spread, n_spread, "load_path", "pandas.read_csv"),
                 ("CSV by row", csv_path, n_csv, "csv row by row", "pandas.read_csv")]
        rows = []
        for label, path, records, reader, peer in files:
            path.read_bytes()  # warm the page cache so neither side pays the first disk read
            ours, theirs = _measure_pair(reader, peer, path, rounds)
            ratio = ours["seconds"] / theirs["seconds"] if theirs["seconds"] else float("inf")
            rows.append({"file": label, "mb": round(path.stat().st_size / 1e6, 1),
                         "records": records, "findings": ours["rows"], "ours": ours,
                         "pandas": theirs, "ratio": round(ratio, 2),
                         "cpu_ratio": round(ours["cpu_s"] / theirs["cpu_s"], 2)
                         if theirs["cpu_s"] else None,
                         "memory_ratio": round(ours["peak_mb"] / theirs["peak_mb"], 2)
                         if theirs["peak_mb"] else None,
                         # (the row path is a reference: load_path reads the CSV column-wise)
                         "target": None if reader == "csv row by row" else TARGET_RATIO,
                         "pass": None if reader == "csv row by row" else ratio <= TARGET_RATIO})
    return {"rows": rows, "rounds": rounds, "mb": mb,
            "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                            "machine": platform.machine()}}


def _table(report: dict[str, Any]) -> str:
    head = (f"{'file':<14}{'MB':>6}{'records':>9}  {'reader':<18}{'time s':>8}{'peak MB':>9}"
            f"   {'time ratio':>10}{'mem ratio':>10}  target")
    lines = [f"Prowler loaders vs pandas, median of {report['rounds']} fresh processes each",
             head, "-" * len(head)]
    for row in report["rows"]:
        for side in ("ours", "pandas"):
            m = row[side]
            verdict = ("reference" if row["target"] is None else
                       f"<= {row['target']:.0f}x {'ok' if row['pass'] else 'MISS'}")
            tail = (f"   {row['ratio']:>9.2f}x{(row['memory_ratio'] or 0):>9.2f}x  {verdict}"
                    if side == "ours" else "")
            lines.append(f"{row['file'] if side == 'ours' else '':<14}"
                         f"{row['mb'] if side == 'ours' else '':>6}"
                         f"{row['records'] if side == 'ours' else '':>9}  {m['reader']:<18}"
                         f"{m['seconds']:>8.3f}{m['peak_mb']:>9.0f}{tail}")
    env = report["environment"]
    lines.append(f"python {env['python']}, {env['cpus']} CPUs; peak MB = peak RSS minus RSS "
                 "before the load; rounds alternate the two readers")
    lines.append("CPU-time ratios (less sensitive to other load on the machine): " + ", ".join(
        f"{row['file']} {row['cpu_ratio']:.2f}x" for row in report["rows"]
        if row["cpu_ratio"] is not None))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of each file in MB")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per figure")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--child", nargs=2, metavar=("READER", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    report = run(args.mb, max(1, args.rounds))
    print(json.dumps(report, indent=2) if args.json else _table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
