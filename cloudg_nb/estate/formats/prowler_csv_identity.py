"""``prowler_identity``'s rules on whole columns, for the column-wise Prowler CSV path: the
results that merge or keep their finding ids apart, and the asset ids of resources and
accounts given under several scopes. Only the rows concerned are walked one by one (repeated
finding ids; ids of files holding more than one scope), so a file of one scan pays a few
array passes; the outcome, report included, is the row path's (tests hold it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import pandas as pd

from .load_report import LoadReport
from .prowler_identity import (
    account_asset_id,
    merge_repeats,
    report_kept_apart,
    scoped_asset_id,
    shared_across_scopes,
)

__all__ = ["Scopes", "merged", "asset_ids", "CodedColumn"]


class CodedColumn(Protocol):
    """A column as ``prowler_csv_columns`` encodes it (its ``_Column``): per row a code into
    its distinct ``values``, and the text of chosen rows."""

    codes: np.ndarray

    @property
    def values(self) -> np.ndarray: ...

    def text_at(self, rows: np.ndarray) -> np.ndarray: ...


class Scopes:
    """Per row of the file: its scope (a code per distinct provider word, account and, for
    Kubernetes, REGION), its provider word (a code into ``words``), its account (text or
    None: ``accounts[acct_code]``) and one code per distinct account text (-1: none)."""

    def __init__(self, word: np.ndarray, words: list[str], acct_code: np.ndarray,
                 accounts: np.ndarray, region: CodedColumn, k8s: np.ndarray) -> None:
        self.word, self.words, self.region = word, words, region
        self.acct = accounts[acct_code]
        distinct = pd.factorize(accounts)[0]  # (equal texts of both account columns: one)
        self.account_codes = distinct[acct_code]
        # one int per (word, account[, namespace]); the sizes bound each factor (no overflow)
        key = word.astype(np.int64) * (int(distinct.max(initial=0)) + 2) \
            + self.account_codes + 1
        if k8s.any():  # a Kubernetes result's namespace is part of its scope
            key = pd.factorize(key)[0].astype(np.int64) * (len(region.values) + 1) \
                + np.where(k8s, region.codes + 1, 0)
        self.code = key

    def pair(self, row: int) -> tuple[str, str | None]:
        """(provider word, account) of ``row``, as warnings name a scope."""
        return self.words[int(self.word[row])], self.acct[row]


class _Taken:
    """The finding ids of the file's valid rows, gathered on first use (only a renaming
    asks)."""

    def __init__(self, gather: Callable[[], set[str]]) -> None:
        self._gather = gather
        self._ids: set[str] | None = None

    def __contains__(self, fid: object) -> bool:
        if self._ids is None:
            self._ids = self._gather()
        return fid in self._ids


def merged(rows: np.ndarray, fid: CodedColumn, check: CodedColumn, uid_at: Callable[[np.ndarray],
           np.ndarray], scopes: Scopes, times: np.ndarray, report: LoadReport
           ) -> tuple[np.ndarray, dict[int, str]]:
    """``prowler_identity.merge_repeats`` on the valid ``rows``: the rows kept (ascending)
    and the new finding id of each renamed row."""
    if not len(rows):
        return rows, {}
    ids = fid.codes[rows]
    repeated = np.bincount(ids)[ids] > 1
    if not repeated.any():
        return rows, {}
    rep = rows[repeated]
    idents = list(zip(scopes.code[rep].tolist(), uid_at(rep).tolist(),
                      check.codes[rep].tolist(), strict=True))
    taken = _Taken(lambda: set(fid.values[np.unique(ids)].tolist()))
    kept, renamed = merge_repeats(
        rep.tolist(), fid.text_at(rep).tolist(), idents, times[rep].tolist(),
        [scopes.pair(r) for r in rep.tolist()], taken, report)
    return np.sort(np.concatenate([rows[~repeated], np.asarray(kept, dtype=rows.dtype)])), \
        renamed


def asset_ids(rows: np.ndarray, uid: np.ndarray, uid_codes: Callable[[], np.ndarray],
              scopes: Scopes, acct_key: np.ndarray, report: LoadReport
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per kept row (``uid`` and the account asset key given per kept row; ``uid_codes``
    gives one code per distinct uid, asked only when the rows hold several scopes): its
    resource's asset id and its account's, ids given under several scopes kept apart and
    reported."""
    ids = uid
    split: dict[str, dict[str, None]] = {}
    scope = scopes.code[rows]
    if len(rows) and (scope != scope[0]).any():
        shared = np.flatnonzero(shared_across_scopes(uid_codes(), scope))
        if len(shared):
            ids = uid.copy()
            for i in shared.tolist():
                word, acct = scopes.pair(int(rows[i]))
                row = int(rows[i])
                region = scopes.region.values[scopes.region.codes[row]]
                ids[i] = scoped_asset_id(word, acct, region or None, uid[i])
                split.setdefault(uid[i], {})[ids[i]] = None
    split_accounts: dict[str, dict[str, None]] = {}
    codes = scopes.account_codes[rows]
    has = np.flatnonzero(codes >= 0)
    if len(has) and len(scopes.words) > 1:  # (one provider word: no account is shared)
        shared_rows = has[shared_across_scopes(codes[has], scopes.word[rows][has])]
        if len(shared_rows):
            acct_key = acct_key.copy()
            for i in shared_rows.tolist():
                word, acct = scopes.pair(int(rows[i]))
                assert acct is not None  # (has an account code)
                acct_key[i] = account_asset_id(word, acct, True)
                split_accounts.setdefault(acct, {})[acct_key[i]] = None
    report_kept_apart(report, {k: list(v) for k, v in split.items()},
                      {k: list(v) for k, v in split_accounts.items()})
    return ids, acct_key
