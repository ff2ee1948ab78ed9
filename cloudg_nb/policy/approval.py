"""ApprovalRule: which of an assistant's calls wait for the analyst besides those that change
another principal's data (those always wait: ``cloudg_nb.catalog.effects``), read from a
policy's ``approval`` mapping (``tools``: names or globs, ``capabilities``, ``timeout``).

The rule only says *whether* a call needs approval; ``cloudg_nb.oversight`` does the waiting.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..layer.enums import Capability

__all__ = ["ApprovalRule", "SENSITIVE_CAPABILITIES", "SENSITIVE_TOOLS"]

#: Tools that wait by name unless a profile says otherwise: none. What waits follows from
#: what a call does: its effects on others' data, and the capabilities below.
SENSITIVE_TOOLS: tuple[str, ...] = ()
#: Capabilities whose calls wait unless a profile says otherwise: revealing pseudonyms,
#: reading files from the allowed folders (loads), writing files (exports).
SENSITIVE_CAPABILITIES = frozenset({Capability.REVEAL, Capability.READ_FS, Capability.WRITE_FS})


@dataclass(frozen=True)
class ApprovalRule:
    """Tool names (globs) and capabilities whose calls need approval, and the wait."""

    tools: tuple[str, ...] = SENSITIVE_TOOLS
    capabilities: frozenset[Capability] = SENSITIVE_CAPABILITIES
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
        """The default rule naming ``tools`` too (the Jupyter extension's
        ``require_approval`` setting)."""
        return cls(tools=tuple(tools), timeout=timeout)

    def applies(self, name: str, capabilities: Iterable[Capability] = ()) -> bool:
        """Whether a call of tool ``name`` (holding ``capabilities``) needs approval."""
        if self.capabilities and not self.capabilities.isdisjoint(capabilities):
            return True
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.tools)

    def describe(self) -> dict[str, Any]:
        return {"tools": list(self.tools),
                "capabilities": sorted(c.value for c in self.capabilities),
                "timeout": self.timeout}
