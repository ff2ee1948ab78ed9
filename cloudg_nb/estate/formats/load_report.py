"""What a loader did with each record: ``LoadReport`` (counts, skipped records, notes).

Readers validate record by record: a bad record is skipped and reported by index, field and
reason in the format's own terms (or, under ``strict``, fails the load); a value not read as
written is a ``note``; what a scanner load merged, renamed or kept apart, and what loaded per
provider, is counted and named. ``to_dict`` is the load_dataset result's ``load_report``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import DatasetLoadError

__all__ = ["LoadReport", "MAX_LISTED"]

#: Skipped records / notes listed one by one (the counts always cover all of them).
MAX_LISTED = 50


@dataclass
class LoadReport:
    """Counts and per-record problems of one load (``file`` is the base name)."""

    file: str
    strict: bool = False
    records: int = 0
    findings: int = 0
    passed: int = 0
    manual: int = 0
    duplicates_merged: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped_count: int = 0
    notes_count: int = 0
    #: Replaces the scanner wording of ``explanation`` (tables have no passed checks).
    explanation: str | None = None
    #: The source format's names of the fields a reader reports (a reader that maps its
    #: records onto another reader's shape reports the names its user wrote).
    aliases: dict[str, str] = field(default_factory=dict)
    #: The source format's wording of why a field fails (keyed like ``aliases``, by the
    #: name the record reader reports): a reader mapping onto another's records says what
    #: its user's file lacks in the file's own terms.
    reasons: dict[str, str] = field(default_factory=dict)
    #: Repeated results merged (finding id, the records, the one kept), the first MAX_LISTED.
    merged: list[dict[str, Any]] = field(default_factory=list)
    #: Finding ids also used by another result, and the id each loaded under.
    finding_ids_renamed: int = 0
    renamed: list[dict[str, Any]] = field(default_factory=list)
    #: Resource / account ids given under several providers or accounts, kept apart.
    assets_kept_apart: int = 0
    kept_apart: list[dict[str, Any]] = field(default_factory=list)
    #: Per provider: results, assets and findings loaded (scanner readers set it).
    providers: dict[str, dict[str, Any]] | None = None
    #: Indexes already accounted for before the record reader runs (``set_aside``, or skipped
    #: by a reader's own pre-check); ``prowler.read_records`` does not read them again.
    set_aside_indexes: set[int] = field(default_factory=set)

    def skip(self, index: int, field_name: str, reason: str, *, file: str | None = None
             ) -> None:
        """Record ``index`` (of ``file``, when the load reads several) is not loaded; in
        strict mode the load fails here."""
        where = file or self.file
        reason = self.reasons.get(field_name, reason)
        field_name = self.aliases.get(field_name, field_name)
        if self.strict:
            raise DatasetLoadError(
                where, f"record {index} is not valid ({field_name}: {reason}); fix it, or "
                       "load without strict to skip bad records and load the rest",
                data={"index": index, "field": field_name, "reason": reason})
        self.skipped_count += 1
        if len(self.skipped) < MAX_LISTED:
            entry: dict[str, Any] = {"index": index, "field": field_name, "reason": reason}
            if file and file != self.file:
                entry["file"] = file
            self.skipped.append(entry)

    def set_aside(self, index: int, field_name: str, reason: str) -> None:
        """Record ``index`` is valid but not loaded (an archived finding): counted and
        listed with the skipped records, and never a strict-mode failure."""
        self.set_aside_indexes.add(index)
        self.skipped_count += 1
        if len(self.skipped) < MAX_LISTED:
            self.skipped.append({"index": index, "field": field_name, "reason": reason})

    def note(self, index: int, field_name: str, reason: str) -> None:
        """Record ``index`` loaded, but ``field_name`` was not read as written."""
        field_name = self.aliases.get(field_name, field_name)
        self.notes_count += 1
        if len(self.notes) < MAX_LISTED:
            self.notes.append({"index": index, "field": field_name, "reason": reason})

    def to_dict(self) -> dict[str, Any]:
        loaded = self.records - self.skipped_count
        explanation = self.explanation or self._explained()
        out = {"file": self.file, "records": self.records, "loaded_records": loaded,
               "findings": self.findings, "passed_checks": self.passed,
               "manual_checks": self.manual, "duplicates_merged": self.duplicates_merged,
               "skipped": self.skipped_count, "skipped_records": list(self.skipped),
               "notes": list(self.notes), "warnings": list(self.warnings),
               "explanation": explanation}
        if self.merged:
            out["merged"] = list(self.merged)
        if self.finding_ids_renamed:
            out["finding_ids_renamed"] = self.finding_ids_renamed
            out["renamed"] = list(self.renamed)
        if self.assets_kept_apart:
            out["assets_kept_apart"] = self.assets_kept_apart
            out["kept_apart"] = list(self.kept_apart)
        if self.providers is not None:
            out["providers"] = {k: dict(v) for k, v in self.providers.items()}
        return out

    def _explained(self) -> str:
        """The scanner wording of ``explanation``: what became of every record."""
        renamed = (f", {self.finding_ids_renamed} results sharing the finding id of another "
                   "result kept under new ids" if self.finding_ids_renamed else "")
        text = (f"{self.records} records read: {self.skipped_count} skipped, "
                f"{self.duplicates_merged} duplicates merged{renamed}; of the rest "
                f"{self.findings} failing checks became findings and {self.passed} passed / "
                f"{self.manual} manual checks went to compliance results only")
        if self.assets_kept_apart:
            text += (f"; {self.assets_kept_apart} resource or account id(s) given under "
                     "several providers or accounts were kept as separate assets")
        if self.providers:
            text += "; by provider: " + ", ".join(
                f"{p} {c['records']} records, {c['assets']} assets, {c['findings']} findings"
                for p, c in self.providers.items())
        return text
