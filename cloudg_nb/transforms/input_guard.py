"""Input guard: refuse tool arguments that look like secrets.

A model that pastes a key, token or connection string into an argument would hand it to a
handler (and to logs, caches and audit hashes). ``GuardSecrets`` scans every string of the
arguments with the secret and credential detectors and raises ``InputRejectedError`` naming
the argument and the kind of secret, never the value. High-entropy strings are not refused by
default: pagination cursors and opaque ids look random too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..layer.errors import InputRejectedError
from .detectors import BUILTIN_DETECTORS, SHIELDS, Detector
from .scan import Scanner

if TYPE_CHECKING:
    from ..layer.pipeline import TransformContext


__all__ = ["GuardSecrets"]

_ARG_NAME = re.compile(r"^[A-Za-z0-9_.\-\[\]]{1,128}$")


class GuardSecrets:
    """The guard_secrets input transform."""

    name = "guard_secrets"

    def __init__(
        self,
        *,
        kinds: Iterable[str] = ("secret", "credential"),
        entropy: bool = False,
        detectors: Iterable[Detector] = (),
        disabled: Iterable[str] = (),
    ) -> None:
        wanted = set(kinds)
        off = set(disabled)
        if not entropy:
            off.add("high_entropy_string")
        chosen = [
            d for d in (*detectors, *BUILTIN_DETECTORS)
            if d.kind in wanted and d.name not in off
        ]
        chosen.sort(key=lambda d: d.priority)
        shields = [d for d in BUILTIN_DETECTORS if d.shield] + list(SHIELDS)
        self.scanner = Scanner(chosen, [d for d in shields if d.name not in off])

    def __repr__(self) -> str:
        return "GuardSecrets()"

    def __call__(self, value: Any, ctx: TransformContext) -> Any:
        self._check(value, "")
        return value

    def _check(self, value: Any, path: str) -> None:
        if isinstance(value, str):
            if len(value) >= 8:
                found = self.scanner.scan(value)
                if found:
                    self._refuse(path, found[0].entity)
        elif isinstance(value, dict):
            for k, v in value.items():
                self._check(v, f"{path}.{k}" if path else str(k))
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                self._check(v, f"{path}[{i}]")

    @staticmethod
    def _refuse(path: str, entity: str) -> None:
        where = f"Argument '{path}'" if path and _ARG_NAME.match(path) else "An argument"
        raise InputRejectedError(
            f"{where} looks like a secret ({entity}) and was not passed to the tool. Secrets "
            "(keys, tokens, passwords, connection strings) must not be tool arguments; refer "
            "to the secret by its name or ARN instead.",
            data={"argument": path if _ARG_NAME.match(path or "") else None, "entity": entity},
        )
