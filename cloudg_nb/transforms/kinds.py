"""The kinds of sensitive value a detector reports and a policy's strategies key on.

Its own module so ``detectors`` and ``strategies`` both build on it without importing each
other.
"""

from __future__ import annotations

__all__ = ["KINDS"]

#: Detector kinds, most sensitive first (earlier kinds win when matches overlap).
KINDS = ("secret", "credential", "identifier", "pii", "network", "temporal")
