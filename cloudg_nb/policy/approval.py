"""ApprovalRule: which of an assistant's calls wait for the analyst, read from a policy's
``approval`` mapping (``tools``: names or globs, ``capabilities``, ``timeout`` seconds).

The rule only says *whether* a call needs approval; ``cloudg_nb.oversight`` does the waiting.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..layer.enums import Capability

__all__ = ["ApprovalRule", "SENSITIVE_TOOLS"]

#: What an assistant may not do without the analyst saying yes, unless a profile says
#: otherwise: reveal pseudonyms, export, load / unload datasets, change suppressions.
SENSITIVE_TOOLS: tuple[str, ...] = (
    "reveal_token", "export_dataset", "load_dataset", "sample_estate", "unload_dataset",
    "suppress_findings", "unsuppress_findings",
)


@dataclass(frozen=True)
class ApprovalRule:
    """Tool names (globs) and capabilities whose calls need approval, and the wait."""

    tools: tuple[str, ...] = SENSITIVE_TOOLS
    capabilities: frozenset[Capability] = frozenset({Capability.REVEAL, Capability.WRITE_FS})
    #: Seconds a call waits for a decision before it is refused (None: the server's default).
    timeout: float | None = None

    @classmethod
    def parse(cls, doc: Mapping[str, Any] | None, *, default: ApprovalRule | None = None,
              ) -> ApprovalRule:
        """The rule of a (validated) ``approval`` mapping; keys it leaves out come from
        ``default`` (the built-in rule when None)."""
        base = default or cls()
        if not doc:
            return base
        tools = doc.get("tools")
        caps = doc.get("capabilities")
        timeout = doc.get("timeout")
        return cls(
            tools=tuple(tools) if tools is not None else base.tools,
            capabilities=frozenset(Capability.parse(c) for c in caps) if caps is not None
            else base.capabilities,
            timeout=float(timeout) if timeout is not None else base.timeout,
        )

    @classmethod
    def of_tools(cls, tools: Iterable[str], timeout: float | None = None) -> ApprovalRule:
        """A rule naming tools only (the Jupyter extension's ``require_approval`` setting)."""
        return cls(tools=tuple(tools), capabilities=frozenset(), timeout=timeout)

    def applies(self, name: str, capabilities: Iterable[Capability] = ()) -> bool:
        """Whether a call of tool ``name`` (holding ``capabilities``) needs approval."""
        if self.capabilities and not self.capabilities.isdisjoint(capabilities):
            return True
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.tools)

    def describe(self) -> dict[str, Any]:
        return {"tools": list(self.tools),
                "capabilities": sorted(c.value for c in self.capabilities),
                "timeout": self.timeout}
