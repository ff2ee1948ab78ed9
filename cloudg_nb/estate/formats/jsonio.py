"""Reading JSON and JSON-lines files with errors that name the file and the problem; a file
of several JSON documents one after another (``cat`` of two scanner outputs) is read as
such (``read_json_documents``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import DatasetLoadError

__all__ = ["read_json", "read_json_lines", "read_json_or_lines", "read_json_documents",
           "read_text", "parse_json", "first_line", "MAX_FILE_BYTES", "TOO_DEEP"]

#: Files larger than this are refused before reading (2 GiB).
MAX_FILE_BYTES = 2 * 1024**3
#: The load error for JSON nested deeper than the parser (or later steps) can follow.
TOO_DEEP = "the JSON is nested too deeply (estate files are a few levels deep)"


def parse_json(text: str, name: str) -> Any:
    """``json.loads``; nesting deeper than the parser follows is a DatasetLoadError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise DatasetLoadError(name, TOO_DEEP, data={"reason": "too_deep"}) from None


def read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
    except OSError:
        raise DatasetLoadError(path.name, "the file cannot be read") from None
    if size > MAX_FILE_BYTES:
        raise DatasetLoadError(path.name, "the file is larger than the 2 GiB limit")
    try:
        data = path.read_bytes()
    except OSError:
        raise DatasetLoadError(path.name, "the file cannot be read") from None
    if not data.strip():
        raise DatasetLoadError(path.name, "the file is empty")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DatasetLoadError(path.name, "the file is not UTF-8 text (is it a binary file "
                                          "or the wrong format?)") from None


def first_line(path: Path) -> str:
    """The first line of a text file (up to 64 KiB), '' when unreadable: enough to tell a
    CSV's kind from its header without reading the whole file."""
    try:
        with path.open("rb") as fh:
            return fh.read(65536).split(b"\n", 1)[0].decode("utf-8-sig", "replace")
    except OSError:
        return ""


def read_json(path: Path, text: str | None = None) -> Any:
    """Parse one JSON document; malformed or truncated JSON names the line and column."""
    text = read_text(path) if text is None else text
    try:
        return parse_json(text, path.name)
    except json.JSONDecodeError as exc:
        raise _broken(path, text, exc) from None


def _broken(path: Path, text: str, exc: json.JSONDecodeError) -> DatasetLoadError:
    """The load error for JSON that stops parsing at ``exc``: truncated or malformed."""
    rest = text[exc.pos:].rstrip()
    truncated = exc.pos >= len(text.rstrip()) - 1 or (
        exc.msg.startswith("Unterminated string") and "\n" not in rest)
    what = "truncated" if truncated else "malformed"
    return DatasetLoadError(
        path.name, f"the JSON is {what} (line {exc.lineno}, column {exc.colno})",
        data={"line": exc.lineno, "column": exc.colno, "reason": what})


def read_json_documents(path: Path, text: str | None = None) -> list[Any]:
    """The JSON documents of a file, in order: one for a JSON file, several when documents
    follow one another (``[...][...]``, ``[...]\n[...]``, JSON lines); where one breaks the
    error names the line and column."""
    text = read_text(path) if text is None else text
    try:
        return [parse_json(text, path.name)]
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise _broken(path, text, exc) from None
    decoder = json.JSONDecoder()
    out: list[Any] = []
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            return out
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _broken(path, text, exc) from None
        except RecursionError:
            raise DatasetLoadError(path.name, TOO_DEEP, data={"reason": "too_deep"}) from None
        out.append(doc)


def read_json_lines(path: Path, text: str | None = None) -> list[Any]:
    """Parse JSON lines (one document per non-empty line)."""
    text = read_text(path) if text is None else text
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(parse_json(line, path.name))
        except json.JSONDecodeError:
            raise DatasetLoadError(path.name, f"line {no} is not valid JSON",
                                   data={"line": no}) from None
    return out


def read_json_or_lines(path: Path) -> Any:
    """A file that is a JSON array (or several, one after another: read as one), one JSON
    document or JSON lines: an array is read as one document (malformed JSON named by line
    and column); other text as one document, else as JSON lines (a bad line named by its
    number)."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        docs = read_json_documents(path, text)
        if len(docs) > 1 and all(isinstance(d, list) for d in docs):
            return [item for doc in docs for item in doc]
        if len(docs) > 1:
            raise DatasetLoadError(path.name, "the file holds a JSON array followed by other "
                                              "JSON; expected arrays (or JSON lines) only")
        return docs[0]
    try:
        return parse_json(text, path.name)
    except json.JSONDecodeError:
        return read_json_lines(path, text)
