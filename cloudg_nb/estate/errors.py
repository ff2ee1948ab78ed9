"""Errors the estate and the workspace raise; all are MCP layer errors a model can read.

``NoDatasetError`` and ``ReferenceNotFoundError`` are ``NotFoundError``s (-32602) so a
handler's "not found" becomes an error result; ``DatasetLoadError`` names the file and the
problem (never the full path or file content); ``DatasetNameConflictError`` carries
``data={existing, suggested}``.
"""

from __future__ import annotations

from typing import Any

from ..layer.errors import InvalidArgumentsError, NotFoundError

__all__ = [
    "NoDatasetError", "ReferenceNotFoundError", "DatasetLoadError", "DatasetNameConflictError",
]


class NoDatasetError(NotFoundError):
    """No dataset is loaded (or none has the requested name); ``data["hint"]`` says what to do."""

    def __init__(self, message: str | None = None, *, data: Any = None) -> None:
        hint = ("Load an estate first: call load_dataset with a file path, or sample_estate "
                "for the demo estate.")
        payload = {"hint": hint}
        if isinstance(data, dict):
            payload.update(data)
        super().__init__(message or "No dataset is loaded. " + hint, data=payload)


class ReferenceNotFoundError(NotFoundError):
    """A reference (asset, finding, framework ...) matched nothing, or more than one thing.

    ``data`` has ``field``, ``close_matches`` (up to 3) and, for ambiguous references,
    ``candidates``.
    """


class DatasetLoadError(InvalidArgumentsError):
    """A file could not be read as an estate: wrong format, malformed or truncated."""

    def __init__(self, file: str, problem: str, *, data: dict[str, Any] | None = None) -> None:
        payload = {"file": file, "problem": problem}
        payload.update(data or {})
        super().__init__(f"Could not load {file!r}: {problem}", data=payload)
        self.file = file
        self.problem = problem


class DatasetNameConflictError(InvalidArgumentsError):
    """A dataset of that name exists; pass replace=true or use ``data["suggested"]``."""

    def __init__(self, existing: str, suggested: str) -> None:
        super().__init__(
            "A dataset with that name is already loaded; pass replace=true to replace it, or "
            "use the suggested name in the error data.",
            data={"existing": existing, "suggested": suggested},
        )
