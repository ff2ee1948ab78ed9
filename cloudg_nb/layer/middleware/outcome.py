"""Classifying a finished request for audit and metrics: ok, error, denied, rate_limited,
rejected, cancelled or exception (defined with the call record, ``layer.call_record``)."""

from __future__ import annotations

from ..call_record import REFUSALS, outcome_of

__all__ = ["outcome_of", "REFUSALS"]
