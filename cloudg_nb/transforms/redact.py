"""Redaction settings: which detectors run, which key names mark secrets, which strategy
applies to each entity, and how one string or one key-ruled value is rewritten.

The walk itself is in ``textpass.py`` (sanitize and redact share one pass over a value);
this module is what the walk asks: the scanner of the active detectors, the key rules and
``rewrite`` / ``rewrite_value`` that apply strategies and count them in the report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .detectors import BUILTIN_DETECTORS, SHIELDS, Detector
from .encoded import DECODER_DETECTORS
from .keys import KeyRules
from .scan import Finding, Scanner
from .strategies import DROP, StrategyTable, apply_strategy
from .vault import KNOWN_ENTITIES

if TYPE_CHECKING:
    from ..layer.pipeline import TransformContext


__all__ = ["Redactor"]


class Redactor:
    """Detectors + key rules + strategies for the redact transform."""

    def __init__(
        self,
        *,
        strategies: Mapping[str, str] | None = None,
        detectors: Iterable[Detector] = (),
        disabled: Iterable[str] = (),
        key_rules: bool = True,
        extra_keys: Mapping[str, str] | None = None,
        keep: Iterable[str] = (),
        decode: bool = True,
    ) -> None:
        table = dict(strategies or {})
        for entity in keep:  # entities this spec must show as is (e.g. a reveal tool's)
            table[entity] = "keep"
        self.table = StrategyTable(table)
        off = set(disabled)
        ordered = sorted(
            (d for d in (*detectors, *BUILTIN_DETECTORS) if d.name not in off),
            key=lambda d: d.priority,
        )
        self.all_detectors = ordered
        self.active = [d for d in ordered if self._active(d)]
        shields = [d for d in ordered if d.shield] + [d for d in SHIELDS if d.name not in off]
        self.identifiers = any(
            self.table.resolve(e, e, k) != "keep"
            for e, k in (("aws_account_id", "identifier"), ("hostname", "network"),
                         ("email", "pii"), ("username", "pii"))
        )
        self.keys = KeyRules(
            secrets=key_rules, identifiers=self.identifiers, extra=extra_keys,
        )
        #: ``decode``: also find secrets inside encoded values (``encoded.py``).
        self.scanner = Scanner(self.active, shields, decode=decode, keys=self.keys)
        if decode:  # what the decoder reports under its own names, for list_detectors
            self.all_detectors = [*ordered, *DECODER_DETECTORS]
        self._key_strategy: dict[str, str] = {}
        #: Entities also found as bare words once learned (pseudonymised ones only).
        self.known_entities = tuple(
            e for e in KNOWN_ENTITIES if self.table.resolve(e, e, "identifier") == "pseudonymize"
        )

    def _active(self, det: Detector) -> bool:
        if det.strategy is not None:
            return det.strategy != "keep"
        return any(self.table.resolve(e, det.name, det.kind) != "keep" for e in det.entities)

    @property
    def pseudonymizes(self) -> bool:
        return self.table.uses("pseudonymize")

    def strategy_for(self, f: Finding) -> str:
        det = f.detector
        if det.strategy is not None:
            return det.strategy
        return self.table.resolve(f.entity, det.name, det.kind)

    def key_strategy(self, entity: str, kind: str = "secret") -> str:
        found = self._key_strategy.get(entity)
        if found is None:
            found = self.table.resolve(entity, entity, kind)
            self._key_strategy[entity] = found
        return found

    # -- rewriting -------------------------------------------------------------------------

    def rewrite(self, text: str, findings: list[Finding], ctx: TransformContext) -> Any:
        """``text`` with each finding replaced by its strategy (``DROP``: drop the value)."""
        vault = ctx.vault
        parts: list[str] = []
        pos = 0
        for f in findings:
            strategy = self.strategy_for(f)
            if strategy == "keep":
                continue
            rep = apply_strategy(strategy, text[f.start:f.end], f.entity, ctx, vault)
            if rep is DROP:
                if not text[:f.start].strip() and not text[f.end:].strip():
                    return DROP
                rep = ""
            parts.append(text[pos:f.start])
            parts.append(rep)
            pos = f.end
        if not parts:
            return text
        parts.append(text[pos:])
        return "".join(parts)

    def rewrite_value(
        self, value: Any, entity: str, ctx: TransformContext, kind: str = "secret"
    ) -> Any:
        """A whole value under a key rule (``password: …``): every scalar in it rewritten."""
        strategy = self.key_strategy(entity, kind)
        if strategy == "keep":
            return value
        return self._rewrite_value(value, entity, strategy, ctx)

    def _rewrite_value(self, value: Any, entity: str, strategy: str, ctx: TransformContext) -> Any:
        t = type(value)
        if value is None or t is bool:
            return value
        if t is str:
            if not value:
                return value
            return apply_strategy(strategy, value, entity, ctx, ctx.vault)
        if t is int or t is float:
            return apply_strategy(strategy, str(value), entity, ctx, ctx.vault)
        if t is dict or t is list or t is tuple:
            if strategy == "drop":
                ctx.count("dropped", entity)
                return DROP
            if t is dict:
                out: dict[Any, Any] = {}
                for k, v in value.items():
                    nv = self._rewrite_value(v, entity, strategy, ctx)
                    if nv is not DROP:
                        out[k] = nv
                return out
            items = [self._rewrite_value(v, entity, strategy, ctx) for v in value]
            return [v for v in items if v is not DROP]
        return apply_strategy(strategy, str(value), entity, ctx, ctx.vault)
