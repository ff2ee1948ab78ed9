"""What a Prowler check result is about, one rule for every Prowler reader: its provider and
scope (provider, account, Kubernetes namespace). Nothing merges across scopes: an id given under
several scopes is one asset per scope; results sharing a finding id merge only when they are the
same check on the same resource in the same scope (a re-scan: the newest kept), else each keeps
its result under ``<id>#2`` ...; every merge, renaming and split is counted and named."""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Hashable, Sequence
from typing import Any

import numpy as np

from .load_report import MAX_LISTED, LoadReport

__all__ = ["PROVIDERS", "OTHER", "scope_word", "provider_of", "ocsf_provider_word",
           "kubernetes_cluster_of_uid", "is_kubernetes", "scope_label", "quoted", "scoped_asset_id",
           "account_asset_id", "shared_across_scopes", "merge_repeats", "report_kept_apart",
           "summarise_providers"]

OTHER = "OTHER"
#: Provider words Prowler writes (``cloud.provider``, CSV PROVIDER) → the model's providers;
#: any other word (m365, github, ...) loads as OTHER and is named in the load report.
PROVIDERS = {"aws": "AWS", "azure": "AZURE", "gcp": "GCP", "google": "GCP",
             "kubernetes": "KUBERNETES", "k8s": "KUBERNETES"}


def scope_word(word: str | None) -> str:
    """A provider word as scopes compare it: lower case, known aliases spelled one way
    (``google`` → ``gcp``, ``k8s`` → ``kubernetes``)."""
    low = (word or "").strip().lower()
    known = PROVIDERS.get(low)
    return known.lower() if known else low


def provider_of(word: str) -> str:
    """The model's provider for a provider word as written (OTHER when it has none)."""
    return PROVIDERS.get(word.lower(), OTHER)


def is_kubernetes(word: str) -> bool:
    return PROVIDERS.get(word.lower()) == "KUBERNETES"


def ocsf_provider_word(cloud_provider: str | None, unmapped_provider: str | None,
                       finding_uid: str | None, profiles: Any, namespaced: bool) -> str:
    """The provider of a Prowler OCSF record, lower case ('' when nothing says). Prowler
    writes ``cloud.provider`` for cloud scans; its Kubernetes records have no ``cloud``: 5.19+
    say ``unmapped.provider``, all say it in the finding uid (``prowler-<provider>-...``),
    their ``metadata.profiles`` ("container") and their resource's ``namespace``."""
    for word in (cloud_provider, unmapped_provider):
        if word:
            return word.lower()
    if finding_uid and finding_uid.startswith("prowler-"):
        word = finding_uid[len("prowler-"):].split("-", 1)[0]
        if word.isalnum():
            return word.lower()
    if (isinstance(profiles, list) and "container" in profiles) or namespaced:
        return "kubernetes"
    return ""


def kubernetes_cluster_of_uid(finding_uid: str, check: str | None) -> str | None:
    """The cluster a Prowler Kubernetes finding uid names: Prowler builds it as
    ``prowler-kubernetes-<check>-<cluster>-namespace: <namespace>-<resource name>``
    (``prowler/lib/outputs/finding.py``), the only place its OCSF output names the cluster
    (the CSV's ACCOUNT_UID)."""
    prefix = f"prowler-kubernetes-{check}-"
    if not check or not finding_uid.startswith(prefix):
        return None
    cluster, found, _ = finding_uid[len(prefix):].partition("-namespace: ")
    return cluster if found and cluster and cluster != "None" else None


#: Longest provider word or account id a message quotes (longer ones are cut, marked "…").
_QUOTED = 64


def quoted(text: str, limit: int = _QUOTED) -> str:
    """``text`` as a message quotes a value from the file: at most ``limit`` characters."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def scope_label(word: str, account: str | None) -> str:
    """How messages name a scope: ``AWS account 1234``, ``KUBERNETES cluster kind``,
    ``m365 (loaded as OTHER) account contoso``, ``AZURE results without an account id``."""
    provider = provider_of(word)
    who = provider if provider != OTHER else \
        f"{quoted(word) or 'provider-less'} (loaded as OTHER)"
    if account is None:
        return f"{who} results without an account id"
    kind = "cluster" if provider == "KUBERNETES" else "account"
    return f"{who} {kind} {quoted(account)}"


def _namespace(region: str | None) -> str:
    return (region or "").removeprefix("namespace: ") or "cluster-wide"


def scoped_asset_id(word: str, account: str | None, region: str | None, uid: str) -> str:
    """The id of a resource whose uid the file gives under more than one scope:
    ``<provider>/<account>/<uid>`` (``-`` for no account), for Kubernetes
    ``kubernetes/<cluster>/<namespace>/<uid>``."""
    head = f"{word.lower() or 'other'}/{account or '-'}"
    if is_kubernetes(word):
        head = f"{head}/{_namespace(region)}"
    return f"{head}/{uid}"


def account_asset_id(word: str, account: str, shared: bool) -> str:
    """``account:<id>``; ``account:<provider>/<id>`` when other providers use the id too."""
    return f"account:{word.lower() or 'other'}/{account}" if shared else f"account:{account}"


def shared_across_scopes(ids: np.ndarray, scopes: np.ndarray) -> np.ndarray:
    """Per row: whether its id (an int code per row) is given under more than one scope
    (an int code per row) in the file: some row of the id has another scope than its first
    row (scatters, no sort)."""
    if not len(ids):
        return np.zeros(0, dtype=bool)
    first_scope = np.empty(int(ids.max()) + 1, dtype=scopes.dtype)
    first_scope[ids[::-1]] = scopes[::-1]  # (the earliest row writes last)
    shared = np.zeros(len(first_scope), dtype=bool)
    shared[ids[scopes != first_scope[ids]]] = True
    return shared[ids]


#: Accounts whose repeated results get a warning each (the rest share one); record indexes
#: listed per merged or renamed result (``count`` always says how many).
_SCOPES_LISTED = 10
_INDEXES_LISTED = 20


def _records(rows: Sequence[int], members: list[int]) -> dict[str, Any]:
    """``records`` (the first ``_INDEXES_LISTED`` indexes) and ``count`` of ``members``."""
    return {"records": [rows[m] for m in members[:_INDEXES_LISTED]], "count": len(members)}


def merge_repeats(rows: Sequence[int], fids: Sequence[str], idents: Sequence[Hashable],
                  times: Sequence[str | None], scopes: Sequence[tuple[str, str | None]],
                  taken: Container[str], report: LoadReport
                  ) -> tuple[list[int], dict[int, str]]:
    """Results ``rows`` (record indexes, in file order) whose finding ids repeat: those of
    one identity (check, resource, scope) are one result seen again, merged to the newest
    (then the last); the identities after a finding id's first keep their results under
    ``<id>#2``, ``#3`` ... (an id not in ``taken``). Returns the kept rows and the new ids by
    row; the merges and renamings go to ``report`` (counted, listed, warned about)."""
    groups: dict[str, dict[Hashable, list[int]]] = {}
    for pos, (fid, ident) in enumerate(zip(fids, idents, strict=True)):
        groups.setdefault(fid, {}).setdefault(ident, []).append(pos)
    kept: list[int] = []
    renamed: dict[int, str] = {}
    rescans: dict[tuple[str, str | None], list[Any]] = {}  # scope → [merged, times]
    for fid, by_ident in groups.items():
        suffix = 1
        for n, members in enumerate(by_ident.values()):
            best = members[0]
            for m in members[1:]:
                if (times[m] or "") >= (times[best] or ""):
                    best = m
            kept.append(rows[best])
            if len(members) > 1:
                report.duplicates_merged += len(members) - 1
                if len(report.merged) < MAX_LISTED:
                    report.merged.append({"finding_id": fid, **_records(rows, members),
                                          "kept": rows[best]})
                seen = rescans.setdefault(scopes[best], [0, set()])
                seen[0] += len(members) - 1
                seen[1].update(times[m] for m in members if times[m])
            if n:
                suffix += 1
                while f"{fid}#{suffix}" in taken:
                    suffix += 1
                new = f"{fid}#{suffix}"
                for m in members:
                    renamed[rows[m]] = new
                report.finding_ids_renamed += 1
                if len(report.renamed) < MAX_LISTED:
                    report.renamed.append({"finding_id": fid, "loaded_as": new,
                                           **_records(rows, members)})
    scopes_listed = sorted(rescans.items(), key=lambda kv: str(kv[0]))
    for scope, (merged, found) in scopes_listed[:_SCOPES_LISTED]:
        when = (f"in more than one scan ({quoted(min(found))} .. {quoted(max(found))})"
                if len(found) > 1
                else "more than once with the same time (the same scan read twice?)")
        report.warnings.append(
            f"{scope_label(*scope)} appears {when}: {merged} repeated check result(s) (same "
            "finding id, check and resource) were merged keeping the newest (load_report."
            "merged names them); load one scan per dataset (and compare them with "
            "diff_datasets) to avoid counting a check twice")
    if len(scopes_listed) > _SCOPES_LISTED:
        rest = scopes_listed[_SCOPES_LISTED:]
        report.warnings.append(
            f"{len(rest)} more accounts appear more than once: "
            f"{sum(seen[0] for _, seen in rest)} more repeated check result(s) were merged "
            "keeping the newest")
    if report.finding_ids_renamed:
        report.warnings.append(
            f"{report.finding_ids_renamed} result(s) share their finding id with a result of "
            "another check, resource, provider or account (placeholder ids, or scans "
            "combined): each was kept, under the id with '#2', '#3' ... (load_report.renamed "
            "names them)")
    return kept, renamed


def report_kept_apart(report: LoadReport, resources: dict[str, list[str]],
                      accounts: dict[str, list[str]]) -> None:
    """Count, list and warn about the resource ids (``resources``: id as written → the asset
    ids it loaded as, the first ``_INDEXES_LISTED`` listed) and account ids (``accounts``:
    likewise) given under several scopes."""
    for written, ids in (*resources.items(), *accounts.items()):
        report.assets_kept_apart += 1
        if len(report.kept_apart) < MAX_LISTED:
            report.kept_apart.append({"id": written, "loaded_as": list(ids[:_INDEXES_LISTED]),
                                      "count": len(ids)})
    if resources:
        report.warnings.append(
            f"{len(resources)} resource id(s) appear under more than one provider, account or "
            "Kubernetes namespace (placeholder ids, or scans combined): each was kept as an "
            "asset of its own, with an id <provider>/<account>/<resource id> "
            "(load_report.kept_apart names them)")
    if accounts:
        report.warnings.append(
            f"{len(accounts)} account id(s) are used by more than one provider: each "
            "provider's account was kept as an asset of its own, with an id "
            "account:<provider>/<account id> (load_report.kept_apart names them)")


def summarise_providers(report: LoadReport, records: Counter[str], assets: Counter[str],
                        findings: Counter[str]) -> None:
    """``report.providers``: per provider of the model, the results (``records``: by provider
    word as written, lower case), assets and findings (by the model's provider) that loaded;
    OTHER also names the words it stands for (``as_written``, the first MAX_LISTED, each
    quoted; '(none)': no provider given), and a warning says so."""
    out: dict[str, dict[str, Any]] = {}
    other: dict[str, int] = {}
    for word, count in records.items():
        provider = provider_of(word)
        line = out.setdefault(provider, {"records": 0, "assets": 0, "findings": 0})
        line["records"] += count
        if provider == OTHER:
            key = quoted(word) or "(none)"
            other[key] = other.get(key, 0) + count
    for provider, count in assets.items():
        out.setdefault(provider, {"records": 0, "assets": 0, "findings": 0})["assets"] = count
    for provider, count in findings.items():
        out.setdefault(provider, {"records": 0, "assets": 0, "findings": 0})["findings"] = count
    if other:
        out.setdefault(OTHER, {"records": 0, "assets": 0, "findings": 0})["as_written"] = \
            sorted(other)[:MAX_LISTED]
        listed = ", ".join(f"{quoted(w, 24)}: {c}" for w, c in sorted(other.items())[:5])
        more = f" and {len(other) - 5} more" if len(other) > 5 else ""
        report.warnings.append(
            f"{sum(other.values())} result(s) name a provider this model has no name for "
            f"({listed}{more}): they loaded with provider OTHER, the provider as written kept "
            "in each asset's metadata.provider")
    report.providers = dict(sorted(out.items()))
