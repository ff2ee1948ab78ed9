"""A Prowler output folder as one dataset: one scan (``<stem>.ocsf.json`` or ``<stem>.csv``)
whose ``compliance/<stem>_<framework>.csv`` files add requirement titles and the requirements
no check covers (never a second copy of a finding), or a folder of one scan's compliance CSVs
(a result in several frameworks is one finding). Several scans are refused: load each file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..errors import DatasetLoadError
from ..frames import normalize_compliance
from .jsonio import first_line
from .prowler import read_prowler
from .prowler_compliance_csv import looks_like_prowler_compliance_csv, read_prowler_compliance_csv
from .prowler_csv import looks_like_prowler_csv

__all__ = ["prowler_scans", "compliance_csvs", "looks_like_prowler_folder",
           "read_prowler_folder"]

_OCSF_SUFFIX = ".ocsf.json"
COMPLIANCE_FOLDER = "compliance"


def prowler_scans(folder: Path) -> dict[str, Path]:
    """The scans in ``folder`` by file stem: the JSON-OCSF file, else the Prowler CSV."""
    scans: dict[str, Path] = {}
    try:
        entries = sorted(p for p in folder.iterdir() if p.is_file())
    except OSError:
        return {}
    for path in entries:
        lower = path.name.lower()
        if lower.endswith(_OCSF_SUFFIX):
            scans[path.name[:-len(_OCSF_SUFFIX)]] = path
    for path in entries:
        stem = path.name[:-4]
        if path.name.lower().endswith(".csv") and stem not in scans and \
                looks_like_prowler_csv(first_line(path)):
            scans[stem] = path
    return scans


def compliance_csvs(folder: Path, stem: str = "") -> list[Path]:
    """The Prowler compliance CSVs in ``folder`` (of the scan ``stem``, when given)."""
    try:
        entries = sorted(p for p in folder.iterdir() if p.is_file())
    except OSError:
        return []
    return [p for p in entries if p.name.lower().endswith(".csv")
            and p.name.startswith(f"{stem}_" if stem else "")
            and looks_like_prowler_compliance_csv(first_line(p))]


def looks_like_prowler_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a Prowler scan, or is a folder of compliance CSVs."""
    return bool(prowler_scans(folder) or compliance_csvs(folder))


def read_prowler_folder(folder: Path, *, name: str = "dataset", strict: bool = False
                        ) -> Dataset:
    """Load the one scan in ``folder`` with its compliance CSVs (see the module)."""
    scans = prowler_scans(folder)
    if not scans and compliance_csvs(folder):
        return _compliance_only(folder, compliance_csvs(folder), name=name, strict=strict)
    if not scans:
        raise DatasetLoadError(folder.name, "the folder holds no Prowler scan (a .ocsf.json "
                                            "file or Prowler's CSV) and no compliance CSV")
    if len(scans) > 1:
        raise DatasetLoadError(
            folder.name, f"the folder holds {len(scans)} Prowler scans; load one scan file on "
                         "its own (diff_datasets compares two loaded scans)",
            data={"scans": [p.name for p in scans.values()][:20]})
    stem, scan = next(iter(scans.items()))
    ds = read_prowler(scan, name=name, strict=strict)
    files = compliance_csvs(folder / COMPLIANCE_FOLDER, stem)
    if not files:
        return ds
    rows = ds.compliance.to_dict("records")
    at = {(str(r["framework"]).lower(), str(r["control_id"])): i for i, r in enumerate(rows)}
    spelled = {str(r["framework"]).lower(): str(r["framework"]) for r in rows}
    known_findings = set(ds.findings["id"].tolist())
    summaries = []
    for path in files:
        part = read_prowler_compliance_csv(path, name=name, strict=strict)
        titled = added = 0
        for r in part.compliance.to_dict("records"):
            fw = spelled.get(str(r["framework"]).lower(), str(r["framework"]))
            key = (fw.lower(), str(r["control_id"]))
            if key in at:
                row = rows[at[key]]
                if row["control_title"] == row["control_id"] != r["control_title"]:
                    row["control_title"] = r["control_title"]
                    titled += 1
                continue
            at[key] = len(rows)
            rows.append({**r, "framework": fw, "finding_ids": [
                f for f in (r["finding_ids"] or []) if f in known_findings] or None})
            added += 1
        report = part.load_report
        summaries.append({"file": path.name, "requirements": len(part.compliance),
                          "titles_added": titled, "requirements_added": added,
                          "skipped": report["skipped"],
                          "skipped_records": report["skipped_records"]})
    merged = Dataset(ds.assets, ds.edges, ds.findings,
                     normalize_compliance(pd.DataFrame(rows, dtype=object), source=folder.name),
                     normalize=False, name=name, source=folder.name, kind=ds.kind)
    merged.load_report = _report(ds.load_report, scan.name, summaries)
    return merged


def _compliance_only(folder: Path, files: list[Path], *, name: str, strict: bool
                     ) -> Dataset:
    """One dataset of the compliance CSVs of one scan (a folder like ``output/compliance``):
    the same check result in several frameworks' files is one asset and one finding."""
    scans = sorted({p.name.split("_", 1)[0] for p in files})
    if len(scans) > 1:
        raise DatasetLoadError(
            folder.name, f"the folder holds the compliance CSVs of {len(scans)} Prowler scans; "
                         "load one file on its own (diff_datasets compares two loaded ones)",
            data={"scans": scans[:20]})
    parts = [read_prowler_compliance_csv(p, name=name, strict=strict) for p in files]
    findings = pd.concat([p.findings for p in parts], ignore_index=True)
    frameworks: dict[str, set[str]] = {}
    for fid, names in zip(findings["id"], findings["compliance_frameworks"], strict=True):
        frameworks.setdefault(fid, set()).update(names or ())
    findings = findings.drop_duplicates("id").reset_index(drop=True)
    findings["compliance_frameworks"] = [sorted(frameworks[f]) for f in findings["id"]]
    ds = Dataset(
        pd.concat([p.assets for p in parts], ignore_index=True).drop_duplicates("id")
        .reset_index(drop=True),
        pd.concat([p.edges for p in parts], ignore_index=True).drop_duplicates("id")
        .reset_index(drop=True),
        findings,
        pd.concat([p.compliance for p in parts], ignore_index=True)
        .drop_duplicates(["framework", "control_id"]).reset_index(drop=True),
        normalize=False, name=name, source=folder.name, kind="prowler")
    reports = [p.load_report for p in parts]
    records = sum(r["records"] for r in reports)
    skipped = sum(r["skipped"] for r in reports)
    listed = [{**s, "file": r["file"]} for r in reports for s in r["skipped_records"]]
    ds.load_report = {
        "file": folder.name, "records": records, "loaded_records": records - skipped,
        "findings": len(findings), "passed_checks": sum(r["passed_checks"] for r in reports),
        "manual_checks": sum(r["manual_checks"] for r in reports), "duplicates_merged": 0,
        "skipped": skipped, "skipped_records": listed[:50], "notes": [],
        "warnings": [w for r in reports for w in r["warnings"]][:1],
        "compliance_files": [{"file": r["file"], "requirements": len(p.compliance),
                              "skipped": r["skipped"]} for r, p in zip(reports, parts,
                                                                       strict=True)],
        "explanation": f"{len(files)} compliance CSV(s), {records} rows ({skipped} skipped): "
                       f"{len(ds.compliance)} requirements of "
                       f"{', '.join(sorted(set(ds.compliance['framework'])))}; the same "
                       f"failing check result in several files is one finding "
                       f"({len(findings)}); passed/manual checks are counted per file"}
    return ds


def _report(report: dict[str, Any], scan: str, summaries: list[dict[str, Any]]
            ) -> dict[str, Any]:
    added = sum(s["requirements_added"] for s in summaries)
    titled = sum(s["titles_added"] for s in summaries)
    return {**report, "file": scan, "compliance_files": summaries,
            "explanation": f"{report['explanation']}; {len(summaries)} compliance CSV(s) of "
                           f"the same scan added {added} requirement(s) no failing or passing "
                           f"check mapped (manual ones among them) and titles for {titled}"}
