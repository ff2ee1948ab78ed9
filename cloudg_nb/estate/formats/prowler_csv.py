"""Prowler's default CSV (``-M csv``, Prowler 4/5; semicolon-separated, one row per check
result). pandas parses it; each row is validated like its JSON-OCSF record (``prowler._record``:
same fields, skips and notes) and built by the same ``prowler_rows.dataset_of_rows``, so both
load alike (cell grammar: ``prowler_csv_cells``). ``read_prowler_csv`` takes the column-wise path
(``prowler_csv_columns``, same output) whenever pandas parses the file."""

from __future__ import annotations

import csv
import io
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..errors import DatasetLoadError
from .jsonio import MAX_FILE_BYTES, first_line, read_text
from .load_report import LoadReport
from .prowler_csv_cells import (
    BAD_STATUS,
    HEADER_WORDS,
    NO_FINDING_UID,
    NO_RESOURCE,
    READ_COLUMNS,
    READ_SET,
    categories_of,
    compliance_of,
    header_again,
    headers_warning,
    severity_note,
    tags_of,
)
from .prowler_csv_columns import read_columns
from .prowler_identity import provider_of, scope_word
from .prowler_rows import SEVERITIES, STATUSES, dataset_of_rows

__all__ = ["looks_like_prowler_csv", "read_prowler_csv", "read_prowler_csv_by_row",
           "REQUIRED_COLUMNS"]

#: Columns without which a CSV is not Prowler's (the others are read when present).
REQUIRED_COLUMNS = ("FINDING_UID", "CHECK_ID", "STATUS", "RESOURCE_UID")


def looks_like_prowler_csv(header_line: str) -> bool:
    """Whether a CSV's first line is Prowler's default header."""
    names = {c.strip().strip('"').upper() for c in header_line.split(";")}
    return all(c in names for c in REQUIRED_COLUMNS)


def _columns(path: Path) -> tuple[dict[str, list[str]], int]:
    """Each column's cells (header names stripped, upper case; cells stripped) and the row
    count. pandas' C parser reads the file (extra cells of a row are dropped); a file it
    refuses (an unterminated quote, bytes that are not UTF-8) is read again by the csv
    module, as before, after ``read_text`` checked the file."""
    try:
        with warnings.catch_warnings():  # extra cells in a row: dropped, like the csv module
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            frame = pd.read_csv(path, sep=";", dtype=object, keep_default_na=False,
                                na_filter=False, encoding="utf-8-sig", index_col=False,
                                usecols=lambda c: str(c).strip().upper() in READ_SET)
        names = {str(k).strip().upper(): k for k in frame.columns}  # the last one wins
        return ({c: [v.strip() if isinstance(v, str) else "" for v in frame[names[c]].tolist()]
                 for c in READ_COLUMNS if c in names}, len(frame))
    except (pd.errors.ParserError, ValueError, csv.Error):
        pass
    text = read_text(path)
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline=""), delimiter=";"))
    except csv.Error:
        raise DatasetLoadError(path.name, "the CSV is malformed (an unterminated quote?)"
                               ) from None
    header = next(csv.reader(io.StringIO(text.split("\n", 1)[0]), delimiter=";"), [])
    names = {str(k).strip().upper(): k for k in reversed(header)}
    return ({c: [v.strip() if isinstance(v := row.get(names[c]), str) else "" for row in rows]
             for c in READ_COLUMNS if c in names}, len(rows))


def _check_results(cols: dict[str, list[str]], n: int, report: LoadReport
                   ) -> list[dict[str, Any]]:
    """The validated check result of each row (what ``prowler._record`` returns for the
    row's OCSF record); bad rows are skipped and reported under the CSV's column names;
    a repeated header row is no record (warned about)."""
    blank = [""] * n
    headers: list[int] = []
    mappings: dict[str, dict[str, list[str]]] = {}  # a check's mapping repeats per row
    tag_sets: dict[str, list[dict[str, str]]] = {}  # and tag sets repeat across resources
    out = []
    for (i, provider_word, account_uid, account_name, region, uid, res_name, res_type, tags,
         service, fid, status_word, severity_word, title, desc, evidence, remediation, check,
         time_dt, muted, compliance, categories) in zip(
            range(n), *(cols.get(c, blank) for c in READ_COLUMNS), strict=True):
        if status_word.upper() in HEADER_WORDS and header_again(
                {c: cols[c][i] for c in READ_COLUMNS if c in cols}, file=report.file, index=i):
            headers.append(i)
            continue
        resource = uid or res_name
        if not resource:
            report.skip(i, "RESOURCE_UID", NO_RESOURCE)
            continue
        if not fid:
            report.skip(i, "FINDING_UID", NO_FINDING_UID)
            continue
        status = STATUSES.get(status_word.lower())
        if status is None:
            report.skip(i, "STATUS", BAD_STATUS)
            continue
        severity = SEVERITIES.get(severity_word.lower())
        if severity is None:
            report.note(i, "SEVERITY", severity_note(severity_word))
            severity = "UNKNOWN"
        word = scope_word(provider_word)
        provider = provider_of(word)
        acct_id = account_uid or (account_name if provider == "KUBERNETES" else "") or None
        reqs = mappings.get(compliance)
        if reqs is None:
            reqs = mappings[compliance] = compliance_of(compliance)
        labels = tag_sets.get(tags)
        if labels is None:
            labels = tag_sets[tags] = tags_of(tags)
        out.append({
            "index": i, "word": word, "provider": provider, "account_id": acct_id,
            "account_name": account_name or acct_id, "cloud_region": region or None,
            "uid": resource, "res_name": res_name or None, "res_type": res_type,
            "res_region": region or None, "labels": labels,
            "service": service or None, "fid": fid, "status": status, "severity": severity,
            "title": title or None, "desc": desc or None, "evidence": evidence or None,
            "remediation": remediation or None, "check": check or None,
            "detected_at": time_dt or None, "muted": muted.lower() == "true", "reqs": reqs,
            "categories": categories_of(categories),
            "tool": "prowler", "muted_reason": "muted in Prowler",
        })
    if headers:
        report.records -= len(headers)
        report.warnings.append(headers_warning(headers))
    return out


def read_prowler_csv(path: Path, *, name: str = "dataset", strict: bool = False) -> Dataset:
    """Load Prowler CSV output as a dataset, like its JSON-OCSF twin (see ``read_prowler``):
    column-wise (``prowler_csv_columns``) when pandas parses the file, else row by row."""
    _check_header(path)
    ds = read_columns(path, name=name, strict=strict)
    return ds if ds is not None else _by_row(path, name=name, strict=strict)


def read_prowler_csv_by_row(path: Path, *, name: str = "dataset", strict: bool = False
                            ) -> Dataset:
    """``read_prowler_csv`` one row at a time (every row's check result built as a dict):
    the reference the column-wise path must equal, and the reader of files pandas refuses."""
    _check_header(path)
    return _by_row(path, name=name, strict=strict)


def _by_row(path: Path, *, name: str, strict: bool) -> Dataset:
    cols, n = _columns(path)
    report = LoadReport(path.name, strict=strict, records=n)
    return dataset_of_rows(_check_results(cols, n, report), report, file=path.name, name=name)


def _check_header(path: Path) -> None:
    """Refuses a file that is not Prowler CSV, or too big to read."""
    header = first_line(path)
    if not looks_like_prowler_csv(header):
        read_text(path)  # an unreadable, empty or binary file says so first
        raise DatasetLoadError(  # (load_path adds which kind fits the file)
            path.name, "not Prowler CSV output: the header lacks "
                       + ", ".join(REQUIRED_COLUMNS) + " (semicolon-separated)",
            data={"required_columns": list(REQUIRED_COLUMNS)})
    if path.stat().st_size > MAX_FILE_BYTES:
        read_text(path)  # refuses it, naming the limit
