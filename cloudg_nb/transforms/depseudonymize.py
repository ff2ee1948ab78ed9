"""Input depseudonymiser: pseudonyms coming back from the model become real values again.

When outputs carry pseudonyms, the model will pass them back (a tool argument, a template
variable, a prompt argument, a completion's partial value or context). This transform
replaces every pseudonym the vault issued with its original, whole strings first, then any
pseudonym-shaped part of a longer string (ARNs, e-mails, IPs, account ids, ids like
``res-…``), so handlers only ever see real values. It never invents a value: text that is not
a known pseudonym is left alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .detectors import builtin

if TYPE_CHECKING:
    from ..layer.pipeline import PseudonymVault, TransformContext


__all__ = ["Depseudonymize"]

# Compound shapes first (an ARN holds an account id), then atoms.
_SHAPES = (
    *(builtin(name).pattern
      for name in ("aws_arn", "azure_resource_id", "gcp_resource_name", "email", "uuid",
                   "mac_address", "ipv6", "ipv4", "aws_account_id", "hostname")),
    re.compile(r"(?<![\w-])[a-z]{1,12}-[0-9a-f]{6,32}(?![\w-])"),
    re.compile(r"(?<!\d)\d{12}(?!\d)"),  # an account id inside a name (bucket-<account>-…)
    # a project pseudonym inside a name (<project>-backups-…, Prowler finding ids)
    re.compile(r"(?<![A-Za-z0-9])p-[0-9a-f]{10}(?![A-Za-z0-9])"),
)


class Depseudonymize:
    """The depseudonymize input transform."""

    name = "depseudonymize"

    def __repr__(self) -> str:
        return "Depseudonymize()"

    def __call__(self, value: Any, ctx: TransformContext) -> Any:
        vault = ctx.vault
        if vault is None or not len(vault):
            return value
        return self._walk(value, vault, ctx)

    def _walk(self, value: Any, vault: PseudonymVault, ctx: TransformContext) -> Any:
        if isinstance(value, str):
            return self.restore(value, vault, ctx)
        if isinstance(value, dict):
            return {k: self._walk(v, vault, ctx) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._walk(v, vault, ctx) for v in value]
        return value

    @staticmethod
    def restore(text: str, vault: PseudonymVault, ctx: TransformContext | None = None) -> str:
        found = vault.lookup(text)
        if found is not None:
            if ctx is not None:
                ctx.count("depseudonymized", found[0])
            return found[1]

        def sub(m: re.Match[str]) -> str:
            hit = vault.lookup(m.group(0))
            if hit is None:
                return m.group(0)
            if ctx is not None:
                ctx.count("depseudonymized", hit[0])
            return hit[1]

        for shape in _SHAPES:
            text = shape.sub(sub, text)
        return text
