"""Column-wise loading of Prowler CSV, the fast path of ``prowler_csv.read_prowler_csv``: the
columns come as Arrow arrays (``prowler_csv_parse``), each encoded once; the row checks of
``prowler_csv`` and the rules of ``prowler_rows.dataset_of_rows`` (``prowler_csv_identity``) run on
distinct values and whole columns, frames built as ``normalize_*`` leaves them. Output identical
to the row path (tests hold it); None when pandas refuses the file (the row path reads it)."""

from __future__ import annotations

import gc
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..dataset import Dataset
from ..finding_exposure import DERIVED_RELATIONSHIP, exposure_of_check
from ..frames import empty_frame
from ..models import Severity
from .load_report import LoadReport
from .on_thread import OnThread
from .prowler_csv_cells import (
    BAD_STATUS,
    HEADER_WORDS,
    NO_FINDING_UID,
    NO_RESOURCE,
    READ_COLUMNS,
    categories_of,
    compliance_of,
    header_again,
    headers_warning,
    severity_note,
    tags_of,
)
from .prowler_csv_identity import Scopes, asset_ids, merged
from .prowler_csv_parse import POOL, read_cells
from .prowler_identity import provider_of, scope_word, summarise_providers
from .prowler_rows import SEVERITIES, STATUSES
from .resource_types import asset_type_of

__all__ = ["read_columns"]

#: Every character ``str.strip`` removes (all lie below U+3001): a cell that starts or ends
#: with one is stripped in Python, so the column-wise cells equal the row path's.
PYTHON_SPACES = "".join(c for c in map(chr, range(0x3001)) if c.isspace())
_PROVIDER_WORDS = ("AWS", "AZURE", "GCP", "KUBERNETES", "OTHER")
_STATUS_WORDS = ("PASS", "FAIL", "MANUAL")
_PASS, _FAIL, _MANUAL = 0, 1, 2
_SEVERITY_WORDS = ("CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO", "UNKNOWN")
#: Each severity's base risk score, by severity code.
_RISKS = np.array([Severity(word).risk for word in _SEVERITY_WORDS], dtype=float)


def _is_arn(texts: pa.Array) -> pa.Array:
    """Texts that start with ``arn:``."""
    return pc.starts_with(texts, "arn:", memory_pool=POOL)


#: Columns read one value per row (no distinct values): nearly every row spells them
#: differently, and only their text and per-row tests are used, never equal codes.
_PER_ROW = frozenset({"RESOURCE_UID", "RESOURCE_NAME"})
#: The status detail: only the failing rows' are read (``_details``).
_DETAIL = "STATUS_EXTENDED"
#: Columns parsed as plain text (the rest are dictionary-encoded as they are parsed): the
#: per-row ones, and finding ids, encoded once after the parse (nearly all distinct).
_FINDING_ID = "FINDING_UID"
_PLAIN = _PER_ROW | {_DETAIL, _FINDING_ID}
#: None as a 0-d object array, so ``np.where(mask, values, _NONE)`` fills with None (typed).
_NONE = np.array(None, dtype=object)


class _Column:
    """One CSV column: per row a code into ``values`` (its distinct stripped cells, '' for a
    missing cell, as an object array, and as Arrow text for column tests), and the rows'
    text on demand. Given only as Arrow text, ``values`` are boxed on first use (finding
    ids: nearly all distinct, and only the failing rows' are read as text)."""

    __slots__ = ("_arrow", "_text", "_values", "codes")

    def __init__(self, codes: np.ndarray, values: np.ndarray | None,
                 arrow: pa.Array | None = None) -> None:
        self.codes = codes
        self._values = values
        self._arrow = arrow
        self._text: np.ndarray | None = None

    @property
    def values(self) -> np.ndarray:
        """Per code: its text (object array of str)."""
        if self._values is None:
            assert self._arrow is not None  # (one of the two is always given)
            self._values = self._arrow.to_numpy(zero_copy_only=False)
        return self._values

    @classmethod
    def of(cls, cells: pa.ChunkedArray | None, n: int, *, per_row: bool = False) -> _Column:
        """A column of Arrow cells: text, or text whose chunks share one dictionary."""
        if cells is None or not n:
            return cls(np.zeros(n, dtype=np.intp), _objects([""]))
        if per_row:
            return cls._per_row(cells, n)
        if isinstance(cells, pa.ChunkedArray) and cells.num_chunks != 1:
            cells = cells.combine_chunks(memory_pool=POOL)  # (one dictionary, one array)
        if not pa.types.is_dictionary(cells.type):
            cells = pc.dictionary_encode(cells, memory_pool=POOL)
        chunks = cells.chunks if isinstance(cells, pa.ChunkedArray) else [cells]
        dictionary = chunks[0].dictionary
        codes = np.concatenate([_indices(chunk) for chunk in chunks])  # -1: a short row's
        padded = _padded(dictionary)
        if not padded and not (codes < 0).any():
            return cls(codes, None, dictionary)
        raw = dictionary.to_numpy(zero_copy_only=False)
        if padded:
            stripped = [v.strip() for v in raw.tolist()]  # then merge cells now equal
            stripped.append("")
            remap, values = pd.factorize(_objects(stripped))
            return cls(remap[codes], _objects([str(v) for v in values]))
        blanks = np.flatnonzero(raw == "")
        if len(blanks):
            codes[codes < 0] = blanks[0]
            return cls(codes, raw, dictionary)
        codes[codes < 0] = len(raw)
        return cls(codes, np.concatenate([raw, _objects([""])]))  # (Arrow text on demand)

    @classmethod
    def _per_row(cls, cells: pa.ChunkedArray | pa.Array, n: int) -> _Column:
        """One value per row (no hashing): for columns nearly every row spells differently."""
        if cells.null_count:  # cells of a short row
            cells = pc.fill_null(cells, "", memory_pool=POOL)
        values = cells.to_numpy(zero_copy_only=False)  # (one pass over the chunks)
        if _padded(cells):
            out = cls(np.arange(n, dtype=np.intp), _objects([v.strip() for v in values.tolist()]))
        else:
            out = cls(np.arange(n, dtype=np.intp), values, cells)
        out._text = out.values  # (row i holds value i)
        return out

    def filled(self) -> np.ndarray:
        """Per value: whether it is non-empty (from Arrow's lengths when it has the text:
        no comparison of boxed strings)."""
        if self._arrow is not None:
            lengths = pc.binary_length(self._arrow, memory_pool=POOL)
            return lengths.to_numpy(zero_copy_only=False) > 0
        return self.values != ""

    def filled_at(self, rows: np.ndarray) -> np.ndarray:
        """Per row of ``rows``: whether its text is non-empty."""
        return self.filled()[self.codes[rows]]

    def text(self) -> np.ndarray:
        """Per row: its text (object array of str)."""
        if self._text is None:
            self._text = self.values[self.codes]
        return self._text

    def text_at(self, rows: np.ndarray) -> np.ndarray:
        """The text of ``rows`` (object array of str); of a column not yet boxed and with
        more distinct values than half the rows, only those rows' are boxed."""
        if self._text is not None:
            return self._text[rows]
        if self._values is None and self._arrow is not None and 2 * len(self._arrow) > len(rows):
            taken = pc.take(self._arrow, _positions(self.codes[rows]), memory_pool=POOL)
            return taken.to_numpy(zero_copy_only=False)
        return self.values[self.codes[rows]]

    def flags(self, test: Any) -> np.ndarray:
        """Per value: ``test`` (an Arrow compute on text, giving booleans) as a bool array."""
        if self._arrow is None:
            self._arrow = pa.array(self.values, pa.large_string(), memory_pool=POOL)
        return np.asarray(test(self._arrow).to_numpy(zero_copy_only=False), dtype=bool)

    def mapped(self, fn: Any, dtype: Any = object) -> np.ndarray:
        """Per row: ``fn(value)`` computed once per distinct value."""
        out = np.empty(len(self.values), dtype=dtype)
        out[:] = [fn(v) for v in self.values.tolist()]
        return out[self.codes]


def _encoded(cells: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Text cells as one dictionary-encoded array (Arrow's kernels: no GIL held)."""
    if isinstance(cells, pa.ChunkedArray):
        cells = cells.chunk(0) if cells.num_chunks == 1 else cells.combine_chunks(
            memory_pool=POOL)
    return pc.dictionary_encode(cells, memory_pool=POOL)


def _positions(rows: np.ndarray) -> pa.Array:
    """``rows`` as an Arrow int64 array over the same memory (``pa.array`` would first
    import pyarrow's pandas support, ~6 ms of a fresh process)."""
    ints = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(ints), [None, pa.py_buffer(ints)])


def _indices(chunk: pa.DictionaryArray) -> np.ndarray:
    """A dictionary chunk's codes as intp, -1 for a null (the cell of a short row)."""
    indices = chunk.indices
    if indices.null_count:
        indices = pc.fill_null(indices, -1, memory_pool=POOL)
    return indices.to_numpy().astype(np.intp)


#: Per byte value: an ASCII character ``str.strip`` removes.
_ASCII_SPACE = np.array([b < 128 and chr(b).isspace() for b in range(256)], dtype=bool)
#: Arrow text types whose buffers ``_edge_bytes`` reads, and their offsets' type.
_OFFSETS = {pa.string(): np.int32, pa.large_string(): np.int64}


def _padded(texts: pa.Array | pa.ChunkedArray) -> bool:
    """Whether any of ``texts`` starts or ends with a character ``str.strip`` removes: told
    by each text's first and last byte while those are ASCII, else by one trim (a text is
    padded when trimming shortens it)."""
    chunks = texts.chunks if isinstance(texts, pa.ChunkedArray) else [texts]
    for chunk in chunks:
        edges = _edge_bytes(chunk)
        if edges is None:
            return _trim_shortens(texts)
        if _ASCII_SPACE[edges].any():
            return True
    return False


def _edge_bytes(texts: pa.Array) -> np.ndarray | None:
    """The first and last byte of each non-empty text (a null's too: that can only make
    ``_padded`` strip what needs no stripping), read from the Arrow buffers; None when one
    is not ASCII (a multi-byte character: only a trim tells) or for another Arrow type."""
    width = _OFFSETS.get(texts.type)
    if width is None:
        return None
    _, offset_buffer, data_buffer = texts.buffers()
    if data_buffer is None or not len(texts):
        return np.zeros(0, dtype=np.uint8)
    offsets = np.frombuffer(offset_buffer, dtype=width, count=len(texts) + 1,
                            offset=texts.offset * np.dtype(width).itemsize)
    data = np.frombuffer(data_buffer, dtype=np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    filled = ends > starts
    edges = np.concatenate([data[starts[filled]], data[ends[filled] - 1]])
    return None if (edges >= 128).any() else edges


def _trim_shortens(texts: pa.Array | pa.ChunkedArray) -> bool:
    """Whether trimming what ``str.strip`` removes shortens any of ``texts``."""
    trimmed = pc.utf8_trim(texts, PYTHON_SPACES, memory_pool=POOL)
    return not pc.all(pc.equal(pc.binary_length(trimmed, memory_pool=POOL),
                               pc.binary_length(texts, memory_pool=POOL), memory_pool=POOL),
                      memory_pool=POOL).as_py()


def _objects(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _validated(col: dict[str, _Column], details: pa.ChunkedArray | None, present: set[str],
               n: int, report: LoadReport) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows that pass ``prowler_csv._check_results``' checks (bad ones skipped, unknown
    severities noted, in row order; repeated header rows left out and warned about), their
    status and severity codes."""
    headers = _header_rows(col, details, present, report)
    has_uid = col["RESOURCE_UID"].filled()[col["RESOURCE_UID"].codes]
    has_name = col["RESOURCE_NAME"].filled()[col["RESOURCE_NAME"].codes]
    no_resource = ~(has_uid | has_name) & ~headers
    no_fid = ~col["FINDING_UID"].filled()[col["FINDING_UID"].codes] & ~no_resource & ~headers
    status = col["STATUS"].mapped(
        lambda w: _STATUS_WORDS.index(s) if (s := STATUSES.get(w.lower())) else -1, np.int8)
    bad_status = (status < 0) & ~no_resource & ~no_fid & ~headers
    bad = no_resource | no_fid | bad_status
    for i in np.flatnonzero(bad).tolist():
        if no_resource[i]:
            report.skip(i, "RESOURCE_UID", NO_RESOURCE)
        elif no_fid[i]:
            report.skip(i, "FINDING_UID", NO_FINDING_UID)
        else:
            report.skip(i, "STATUS", BAD_STATUS)
    bad |= headers
    sev_col = col["SEVERITY"]
    severity = sev_col.mapped(lambda w: _SEVERITY_WORDS.index(
        SEVERITIES.get(w.lower(), "UNKNOWN")), np.int8)
    known = sev_col.mapped(lambda w: w.lower() in SEVERITIES, bool)
    for i in np.flatnonzero(~known & ~bad).tolist():
        report.note(i, "SEVERITY", severity_note(sev_col.values[sev_col.codes[i]]))
    if headers.any():
        found = np.flatnonzero(headers).tolist()
        report.records -= len(found)
        report.warnings.append(headers_warning(found))
    return np.flatnonzero(~bad), status, severity


def _header_rows(col: dict[str, _Column], details: pa.ChunkedArray | None, present: set[str],
                 report: LoadReport) -> np.ndarray:
    """Per row: whether it repeats the header (``prowler_csv_cells.header_again``; only rows
    whose STATUS cell holds a column name are looked at)."""
    named = col["STATUS"].mapped(lambda w: w.upper() in HEADER_WORDS, bool)
    out = np.zeros(len(named), dtype=bool)
    for i in np.flatnonzero(named).tolist():
        cells = {c: (col[c].values[col[c].codes[i]] if c != _DETAIL else
                     (details[i].as_py() or "").strip() if details is not None else "")
                 for c in READ_COLUMNS if c in present}
        out[i] = header_again(cells, file=report.file, index=i)
    return out


def _one(value: Any) -> np.ndarray:
    """``value`` as a 0-d object array: ``np.where`` then fills with this very object (a
    ``str`` would first become a NumPy text array, boxed anew for every cell)."""
    return np.array(value, dtype=object)


def _repeated(value: Any, count: int) -> np.ndarray:
    """An object array of ``count`` times ``value`` (``np.full`` would box it per cell)."""
    out = np.empty(count, dtype=object)
    out.fill(value)
    return out


def _none_if_empty(texts: np.ndarray) -> np.ndarray:
    """Object array: the text, or None where it is ''."""
    out = texts.copy()
    out[texts == ""] = None
    return out


class _CollectorPause:
    """The cyclic garbage collector paused while frames are built: a load allocates ~10^5
    acyclic containers (tag and metadata dicts, lists), and every few thousand of them would
    start a full collection of the whole heap (~0.1 s of a 50 MB load). Overlapping loads
    (threads) share one pause; the collector runs again when the last one ends, if it ran
    before the first began."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._was_enabled = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if not self._active:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if not self._active and self._was_enabled:
                    gc.enable()


_collector_paused = _CollectorPause()


def read_columns(path: Path, *, name: str = "dataset", strict: bool = False
                 ) -> Dataset | None:
    """The dataset ``prowler_csv``'s row path would load from ``path`` (see the module);
    None when pandas cannot parse the file."""
    with _collector_paused():
        return _read_columns(path, name=name, strict=strict)


def _read_columns(path: Path, *, name: str, strict: bool) -> Dataset | None:
    parsed = read_cells(path, _PLAIN)
    if parsed is None:
        return None
    cells, n = parsed
    # finding ids (nearly all distinct) are encoded by Arrow on a thread of its own while
    # this one boxes and checks the other columns
    ids = cells.get(_FINDING_ID)
    encoded = OnThread(_encoded, ids, name="cloudg-csv-encode") if ids is not None else None
    col = {c: _Column.of(cells.get(c), n, per_row=c in _PER_ROW) for c in READ_COLUMNS
           if c not in (_DETAIL, _FINDING_ID)}
    col[_FINDING_ID] = _Column.of(encoded.result() if encoded else None, n)
    details = cells.get(_DETAIL)
    present = {c for c in READ_COLUMNS if cells.get(c) is not None}
    del cells, parsed
    report = LoadReport(path.name, strict=strict, records=n)
    valid, status, severity = _validated(col, details, present, n, report)
    # the provider word of each distinct PROVIDER cell, as the row path spells it
    words: list[str] = []
    word = col["PROVIDER"].mapped(lambda w: _code(words, scope_word(w)), np.intp)
    provider = np.array([_PROVIDER_WORDS.index(provider_of(w)) for w in words] or [0],
                        dtype=np.intp)[word]
    # the account: ACCOUNT_UID, else (Kubernetes) ACCOUNT_NAME, else none; as codes into
    # both columns' values, so its asset key is built once per account
    auid, aname = col["ACCOUNT_UID"], col["ACCOUNT_NAME"]
    accounts = _objects([*auid.values.tolist(), *aname.values.tolist(), None])
    k8s = provider == _PROVIDER_WORDS.index("KUBERNETES")
    acct_code = np.where(auid.filled()[auid.codes], auid.codes, np.where(
        k8s & aname.filled()[aname.codes], len(auid.values) + aname.codes, len(accounts) - 1))
    scopes = Scopes(word, words, acct_code, accounts, col["REGION"], k8s)
    keys = _objects([None if a is None else "account:" + a for a in accounts.tolist()])
    times = _none_if_empty(col["TIMESTAMP"].text())
    rows, renamed = merged(valid, col[_FINDING_ID], col["CHECK_ID"],
                           lambda at: _uid_at(col, at), scopes, times, report)
    ds = _dataset(col, details, rows, renamed, status[rows], severity[rows], provider[rows],
                  scopes, keys[acct_code[rows]], times[rows], report, file=path.name,
                  name=name)
    failing = np.bincount(provider[rows][status[rows] == _FAIL], minlength=len(_PROVIDER_WORDS))
    summarise_providers(
        report, Counter({words[w]: int(c) for w, c in enumerate(
            np.bincount(word[valid], minlength=len(words)).tolist()) if c}),
        Counter({str(p): int(c) for p, c in ds.assets["provider"].value_counts().items()}),
        Counter({_PROVIDER_WORDS[p]: int(c) for p, c in enumerate(failing.tolist()) if c}))
    ds.load_report = report.to_dict()
    return ds


def _code(seen: list[str], value: str) -> int:
    """``value``'s position in ``seen`` (appended when new)."""
    if value not in seen:
        seen.append(value)
    return seen.index(value)


def _uid_codes(col: dict[str, _Column], rows: np.ndarray, uid: np.ndarray) -> np.ndarray:
    """Per row of ``rows`` (``uid`` its resource): a code shared by exactly the rows of equal
    resource; hashed by Arrow when every row has its own RESOURCE_UID (no boxed strings)."""
    uid_col = col["RESOURCE_UID"]
    arrow = uid_col._arrow  # (a per-row column's Arrow text: one cell per row)
    if arrow is not None and uid_col.filled_at(rows).all():
        return _indices(_encoded(arrow))[uid_col.codes[rows]]  # (every row's, then taken)
    return pd.factorize(uid)[0]


def _uid_at(col: dict[str, _Column], rows: np.ndarray) -> np.ndarray:
    """The resource of ``rows``: RESOURCE_UID, else RESOURCE_NAME."""
    return np.where(col["RESOURCE_UID"].filled_at(rows), col["RESOURCE_UID"].text_at(rows),
                    col["RESOURCE_NAME"].text_at(rows))


def _dataset(col: dict[str, _Column], details: pa.ChunkedArray | None, rows: np.ndarray,
             renamed: dict[int, str], status: np.ndarray, severity: np.ndarray,
             provider: np.ndarray, scopes: Scopes, acct_key: np.ndarray, times: np.ndarray,
             report: LoadReport, *, file: str, name: str) -> Dataset:
    """The frames of the kept ``rows`` (row numbers, ascending; the other arrays are per
    kept row; ``details`` the status detail cells of every row; ``renamed`` the new finding
    id of a row whose id another result uses), as ``dataset_of_rows`` builds them."""
    uid_text, res_name = col["RESOURCE_UID"].text_at(rows), col["RESOURCE_NAME"].text_at(rows)
    uid_col, name_col = col["RESOURCE_UID"], col["RESOURCE_NAME"]
    own_uid = uid_col.filled_at(rows)
    uid = np.where(own_uid, uid_text, res_name)
    is_arn = np.where(own_uid, uid_col.flags(_is_arn)[uid_col.codes[rows]],
                      name_col.flags(_is_arn)[name_col.codes[rows]])
    arn = np.where(is_arn, uid, _NONE)
    report.findings += int((status == _FAIL).sum())
    report.passed += int((status == _PASS).sum())
    report.manual += int((status == _MANUAL).sum())
    fail = np.flatnonzero(status == _FAIL)
    ids, acct_key = asset_ids(rows, uid, lambda: _uid_codes(col, rows, uid), scopes,
                              acct_key, report)
    assets = _assets(col, rows, ids, uid, arn, res_name, provider, scopes.acct[rows], acct_key,
                     scopes.word[rows], scopes.words)
    comp = col["COMPLIANCE"]
    mappings = [compliance_of(s) for s in comp.values.tolist()]
    evidence, ipv6_only = _details(details, rows[fail])
    findings = _findings(col, rows[fail], renamed, ids[fail], arn[fail], severity[fail],
                         times[fail], evidence, mappings)
    edges = _edges(col, rows[fail], findings, ipv6_only)
    compliance = _controls(mappings, comp.codes[rows], status.astype(np.intp),
                           comp.codes[rows[fail]], findings["id"].to_numpy())
    return Dataset(assets, edges, findings, compliance, normalize=False, name=name,
                   source=file, kind="prowler")


def _per_pair(a: np.ndarray, b: np.ndarray, size_b: int, fn: Any) -> np.ndarray:
    """Per row: ``fn(a, b)`` computed once per distinct (a, b) pair of small-int codes."""
    inverse, pairs = pd.factorize(a.astype(np.int64) * size_b + b)
    return _objects([fn(int(p) // size_b, int(p) % size_b) for p in pairs.tolist()])[inverse]


def _combined(*codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One code per distinct tuple of per-row ``codes`` (each in 0..n), numbered in order of
    first appearance, and the first row of each."""
    key = codes[0].astype(np.int64)
    for more in codes[1:]:
        key, _ = pd.factorize(key * (int(more.max(initial=0)) + 1) + more)
    key, uniques = pd.factorize(key)
    first = np.empty(len(uniques), dtype=np.intp)
    first[key[::-1]] = np.arange(len(key) - 1, -1, -1)  # the earliest row writes last
    return key, first


def _assets(col: dict[str, _Column], rows: np.ndarray, ids: np.ndarray, uid: np.ndarray,
            arn: np.ndarray, res_name: np.ndarray, provider: np.ndarray, acct: np.ndarray,
            acct_key: np.ndarray, word: np.ndarray, words: list[str]) -> pd.DataFrame:
    """Each row's account (first) then resource (asset id ``ids``, its uid as written
    ``uid``), the first of each id kept, in row order; ``word``: each row's provider word (a
    code into ``words``), kept in the metadata of an OTHER provider's assets."""
    m = len(rows)
    if not m:
        return empty_frame("assets")
    keys = np.empty(2 * m, dtype=object)
    keys[0::2], keys[1::2] = acct_key, ids
    # (dtype=object: an inferred str dtype would copy every key into Arrow first)
    known = np.ones(2 * m, dtype=bool)
    known[0::2] = np.not_equal(acct_key, _NONE)  # (a row without an account has no key)
    first = np.flatnonzero(~pd.Series(keys, dtype=object).duplicated().to_numpy() & known)
    of_row, is_account = first // 2, first % 2 == 0
    res = ~is_account
    r, a = of_row[res], of_row[is_account]  # kept-row positions of resources / accounts
    count = len(first)
    prov = _objects(list(_PROVIDER_WORDS))[provider[of_row]]

    name = np.empty(count, dtype=object)
    acct_name = col["ACCOUNT_NAME"].text_at(rows[a])
    name[is_account] = np.where(acct_name != "", acct_name, acct[a])
    own = res_name[r].copy()
    untitled = np.flatnonzero(~col["RESOURCE_NAME"].filled_at(rows[r]))
    own[untitled] = [u.rsplit("/", 1)[-1] or u for u in uid[r][untitled].tolist()]
    name[res] = own

    type_col, service_col, tag_col = (col["RESOURCE_TYPE"], col["SERVICE_NAME"],
                                      col["RESOURCE_TAGS"])
    type_codes, types = type_col.codes[rows[r]], type_col.values.tolist()
    asset_type = np.empty(count, dtype=object)
    asset_type[is_account] = np.where(provider[a] == _PROVIDER_WORDS.index("KUBERNETES"),
                                      "KUBERNETES_CLUSTER", "CLOUD_ACCOUNT")
    asset_type[res] = _per_pair(type_codes, provider[r], len(_PROVIDER_WORDS), lambda t, p: (
        asset_type_of(types[t], _PROVIDER_WORDS[p]) or "OTHER"))

    region = _repeated("global", count)
    reg = col["REGION"].text_at(rows[r])
    region[res] = np.where(col["REGION"].filled_at(rows[r]), reg, _one("global"))
    asset_arn = np.empty(count, dtype=object)  # (object arrays start as None)
    asset_arn[res] = arn[r]

    tag_sets = _objects([{str(t["Key"]): str(t["Value"]) for t in tags_of(s)}
                         for s in tag_col.values.tolist()])
    tags = np.empty(count, dtype=object)  # each asset its own dict (callers may edit)
    tag_codes = tag_col.codes[rows[r]]
    tagged = np.flatnonzero(np.array([bool(t) for t in tag_sets.tolist()], bool)[tag_codes])
    tags[np.flatnonzero(res)[tagged]] = _copies(tag_sets[tag_codes[tagged]])
    services = service_col.values.tolist()

    def meta_of(t: int, s: int) -> dict[str, str]:
        meta = {"original_type": types[t]} if types[t] else {}
        if services[s]:
            meta["service"] = services[s]
        return meta

    metadata = np.empty(count, dtype=object)  # each asset its own dict (callers may edit)
    service_codes = service_col.codes[rows[r]]
    metas = _per_pair(type_codes, service_codes, len(services), meta_of)
    described = np.flatnonzero(_per_pair(  # (an asset without either keeps None)
        type_codes, service_codes, len(services), lambda t, s: bool(types[t] or services[s])
    ).astype(bool))
    metadata[np.flatnonzero(res)[described]] = _copies(metas[described])
    for i in np.flatnonzero(provider[of_row] == _PROVIDER_WORDS.index("OTHER")).tolist():
        metadata[i] = {**(metadata[i] or {}), "provider": words[int(word[of_row[i]])]}
    return _canonical({
        "id": keys[first], "arn": asset_arn, "name": name, "asset_type": asset_type,
        "provider": prov, "region": region, "account_id": acct[of_row], "tags": tags,
        "metadata": metadata, "is_internet_exposed": np.zeros(count, dtype=bool)})


def _copies(dicts: np.ndarray) -> np.ndarray:
    """A new copy of each of ``dicts`` (object array), straight into an object array."""
    return np.fromiter(map(dict.copy, dicts.tolist()), dtype=object, count=len(dicts))


def _details(cells: pa.ChunkedArray | None, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The status detail of ``rows`` (stripped text) and whether each names only the IPv6
    internet (``::/0`` without ``0.0.0.0/0``; stripping changes neither test)."""
    if cells is None or not len(rows):
        return _repeated("", len(rows)), np.zeros(len(rows), dtype=bool)
    if isinstance(cells, pa.ChunkedArray) and cells.num_chunks != 1:
        cells = cells.combine_chunks(memory_pool=POOL)  # (a take across chunks is slower)
    taken = pc.take(cells, _positions(rows), memory_pool=POOL)
    if taken.null_count:  # cells of a short row
        taken = pc.fill_null(taken, "", memory_pool=POOL)
    chunks = taken.chunks if isinstance(taken, pa.ChunkedArray) else [taken]
    text = np.concatenate([chunk.to_numpy(zero_copy_only=False) for chunk in chunks])
    if _padded(taken):
        text = _objects([v.strip() for v in text.tolist()])
    texts = text.tolist()  # (Python's ``in`` beats two Arrow substring passes here)
    return text, np.fromiter(("::/0" in d and "0.0.0.0/0" not in d for d in texts), bool,
                             len(texts))


def _findings(col: dict[str, _Column], rows: np.ndarray, renamed: dict[int, str],
              uid: np.ndarray, arn: np.ndarray, severity: np.ndarray, detected_at: np.ndarray,
              evidence: np.ndarray, mappings: list[dict[str, list[str]]]) -> pd.DataFrame:
    """The failing kept rows as the canonical finding frame (``renamed``: new ids by row;
    ``uid``: each row's asset id)."""
    if not len(rows):
        return empty_frame("findings")
    fid = col["FINDING_UID"].text_at(rows)
    if renamed:
        fid = fid.copy()
        for i, row in enumerate(rows.tolist()):
            if row in renamed:
                fid[i] = renamed[row]
    title = col["CHECK_TITLE"].text_at(rows)
    check = col["CHECK_ID"].text_at(rows)
    muted = col["MUTED"].mapped(lambda w: w.lower() == "true", bool)[rows]
    frameworks = _objects([sorted(m) or None for m in mappings])
    out = _canonical({
        "id": fid, "resource_id": uid, "resource_arn": arn,
        "severity": _objects(list(_SEVERITY_WORDS))[severity],
        "title": np.where(col["CHECK_TITLE"].filled_at(rows), title, fid),
        "description": _none_if_empty(col["DESCRIPTION"].text_at(rows)),
        "evidence": _none_if_empty(evidence),
        "remediation": _none_if_empty(col["REMEDIATION_RECOMMENDATION_TEXT"].text_at(rows)),
        "source_tool": _repeated("prowler", len(rows)),
        "source_finding_id": np.where(col["CHECK_ID"].filled_at(rows), check, fid),
        "compliance_frameworks": [list(f) if f else None for f in
                                  frameworks[col["COMPLIANCE"].codes[rows]].tolist()],
        "cvss_score": np.full(len(rows), np.nan), "detected_at": detected_at,
        "is_suppressed": muted,
        "suppression_reason": np.where(muted, _one("muted in Prowler"), _NONE)})
    out["risk_score"] = _RISKS[severity]  # (``frames.risk_scores`` without a CVSS score)
    return out


def _edges(col: dict[str, _Column], rows: np.ndarray, findings: pd.DataFrame,
           ipv6_only: np.ndarray) -> pd.DataFrame:
    """``finding_exposure.exposure_edges`` of the findings (failing kept ``rows``): each
    distinct (check, title, categories, IPv6-only detail) is read once."""
    if not len(rows):
        return empty_frame("edges")
    cat_col, check_col, title_col = col["CATEGORIES"], col["CHECK_ID"], col["CHECK_TITLE"]
    categories = [categories_of(s) for s in cat_col.values.tolist()]
    ids, checks = findings["id"].to_numpy(), findings["source_finding_id"].to_numpy()
    titles = findings["title"].to_numpy()
    # a row without its own check id or title reads its finding id there: keyed by row
    own = (check_col.filled()[check_col.codes[rows]] & title_col.filled()[title_col.codes[rows]])
    combo, first = _combined(check_col.codes[rows], title_col.codes[rows], cat_col.codes[rows],
                             ipv6_only.astype(np.intp),
                             np.where(own, 0, np.arange(1, len(rows) + 1)))
    exposures = _objects([exposure_of_check(checks[i], titles[i],
                                            categories[cat_col.codes[rows[i]]],
                                            "::/0" if ipv6_only[i] else None)
                          for i in first.tolist()])
    hit = np.flatnonzero(np.array([e is not None for e in exposures.tolist()], bool)[combo])
    if not len(hit):
        return empty_frame("edges")
    fids, hit_checks = ids[hit].tolist(), checks[hit].tolist()
    count = len(hit)
    used, of_hit = np.unique(combo[hit], return_inverse=True)  # the exposures edges carry
    carried = exposures[used].tolist()
    carries = of_hit.tolist()  # per edge: its exposure in ``carried``
    kinds, bases = [e.kind for e in carried], [e.basis for e in carried]
    described, ports = [e.describe() for e in carried], [e.ports for e in carried]

    def lowered(texts: list[Any]) -> pd.Series:
        """Per edge, as ``normalize_edges`` lowers a column (its dtype inferred alike)."""
        return pd.Series(_objects(texts), dtype=object).map(
            lambda p: p.lower() if isinstance(p, str) else p).take(of_hit)

    return _canonical({  # (what normalize_edges leaves, without re-reading every cell)
        "id": [f"derived:{f}" for f in fids], "source_id": _repeated("internet", count),
        "target_id": findings["resource_id"].to_numpy()[hit],
        "edge_type": _repeated("INTERNET_EXPOSED", count),
        "relationship": _repeated(DERIVED_RELATIONSHIP, count),
        "properties": [{"derived_from_finding": f, "check_id": c, "exposure": kinds[k],
                        "basis": bases[k]} for f, c, k in zip(fids, hit_checks, carries,
                                                              strict=True)],
        "description": [f"Derived from finding {f}: {described[k]}."
                        for f, k in zip(fids, carries, strict=True)],
        "ports": [list(ports[k]) or None for k in carries],
        "port_range": _objects(["0-65535" if e.all_ports else None for e in carried])[of_hit],
        "protocol": lowered([e.protocol for e in carried]),
        "cidr": _objects([e.source for e in carried])[of_hit],
        "direction": lowered(["ingress"] * len(carried))})


def _controls(mappings: list[dict[str, list[str]]], codes: np.ndarray, status: np.ndarray,
              fail_codes: np.ndarray, finding_ids: np.ndarray) -> pd.DataFrame:
    """Control results as ``dataset_of_rows`` builds them: ``codes`` (into ``mappings``) and
    ``status`` per kept row, ``fail_codes`` per finding. Controls in order of first mention;
    FAIL when a failing row maps to one, else MANUAL, else PASS; findings in row order."""
    if not len(codes):
        return empty_frame("compliance")
    present, first = np.unique(codes, return_index=True)
    statuses = np.zeros((len(mappings), 3), dtype=bool)
    statuses[codes, status] = True
    by_code = np.argsort(fail_codes, kind="stable")
    bounds = np.searchsorted(fail_codes[by_code], np.arange(len(mappings) + 1))
    mentions: dict[tuple[str, str], dict[int, int]] = {}  # control → {code: times named}
    for code in present[np.argsort(first)].tolist():
        for fw, controls in mappings[code].items():
            for control in controls:
                named = mentions.setdefault((fw, control), {})
                named[code] = named.get(code, 0) + 1
    frameworks, control_ids, results, failing = [], [], [], []
    for (fw, control), named in mentions.items():
        seen = np.asarray(statuses[list(named)].any(axis=0))
        results.append("FAIL" if seen[_FAIL] else "MANUAL" if seen[_MANUAL] else "PASS")
        parts = [np.repeat(by_code[bounds[c]:bounds[c + 1]], k) for c, k in named.items()]
        rows = parts[0] if len(parts) == 1 else np.sort(np.concatenate(parts), kind="stable")
        failing.append(finding_ids[rows].tolist() or None)
        frameworks.append(fw)
        control_ids.append(control)
    return _canonical({"framework": frameworks, "control_id": control_ids,
                       "control_title": list(control_ids), "status": results,
                       "finding_ids": failing})


def _canonical(columns: dict[str, Any]) -> pd.DataFrame:
    """A frame of these columns; text and object columns stay ``object`` (as the
    normalisers leave them), bool and float columns keep their dtype."""
    out = {}
    for key, values in columns.items():
        if isinstance(values, pd.Series):
            out[key] = values.reset_index(drop=True)
        elif isinstance(values, np.ndarray) and values.dtype != object:
            out[key] = pd.Series(values)
        else:
            objects = values if isinstance(values, np.ndarray) else _objects(values)
            out[key] = pd.Series(objects, dtype=object, copy=False)
    # each column keeps its own block: the arrays were built for this frame alone, so it
    # takes them as they are (consolidating them would copy every cell, ~10 ms a frame)
    return pd.DataFrame(out, copy=False)
