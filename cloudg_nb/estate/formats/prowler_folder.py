"""A folder of Prowler output (its ``output/``: one scan's ``<stem>.ocsf.json`` or ``<stem>.csv``
and ``compliance/<stem>_<framework>.csv``) loaded as one dataset.

The scan file gives the assets, findings (with severities) and control results; each
compliance CSV of the same scan adds its requirements' titles and the requirements no check
covers (MANUAL), never a second copy of a finding. A folder holding several scans is refused
(load each scan file on its own; ``diff_datasets`` compares two).
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

__all__ = ["prowler_scans", "read_prowler_folder"]

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


def _compliance_files(folder: Path, stem: str) -> list[Path]:
    sub = folder / COMPLIANCE_FOLDER
    if not sub.is_dir():
        return []
    return sorted(p for p in sub.iterdir()
                  if p.is_file() and p.name.lower().endswith(".csv")
                  and p.name.startswith(f"{stem}_")
                  and looks_like_prowler_compliance_csv(first_line(p)))


def read_prowler_folder(folder: Path, *, name: str = "dataset", strict: bool = False
                        ) -> Dataset:
    """Load the one scan in ``folder`` with its compliance CSVs (see the module)."""
    scans = prowler_scans(folder)
    if not scans:
        raise DatasetLoadError(folder.name, "the folder holds no Prowler scan (a .ocsf.json "
                                            "file or Prowler's CSV)")
    if len(scans) > 1:
        raise DatasetLoadError(
            folder.name, f"the folder holds {len(scans)} Prowler scans; load one scan file on "
                         "its own (diff_datasets compares two loaded scans)",
            data={"scans": [p.name for p in scans.values()][:20]})
    stem, scan = next(iter(scans.items()))
    ds = read_prowler(scan, name=name, strict=strict)
    files = _compliance_files(folder, stem)
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


def _report(report: dict[str, Any], scan: str, summaries: list[dict[str, Any]]
            ) -> dict[str, Any]:
    added = sum(s["requirements_added"] for s in summaries)
    titled = sum(s["titles_added"] for s in summaries)
    return {**report, "file": scan, "compliance_files": summaries,
            "explanation": f"{report['explanation']}; {len(summaries)} compliance CSV(s) of "
                           f"the same scan added {added} requirement(s) no failing or passing "
                           f"check mapped (manual ones among them) and titles for {titled}"}
