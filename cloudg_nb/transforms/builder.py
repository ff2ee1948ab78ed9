"""Building pipelines from policy settings: step lists, step options, custom detectors.

A policy names output steps (``sanitize``, ``redact``, ``project``, ``annotate``) and input
steps (``guard_secrets``, ``depseudonymize``), each either a bare name or ``{name: options}``;
options merge over the policy's ``transform_options``. Output steps always run in the fixed
order sanitize → redact → project → annotate whatever order they are listed in (sanitize and
redact share one walk, ``TextPass``). Built steps are cached by their settings, so pipelines
for many specs share steps (and their key-decision caches).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from ..layer.pipeline import Pipeline, Transform
from .annotate import Annotate
from .depseudonymize import Depseudonymize
from .detectors import KINDS, Detector, custom_detector
from .input_guard import GuardSecrets
from .project import Project
from .redact import Redactor
from .sanitize import Sanitizer
from .strategies import STRATEGIES
from .textpass import TextPass

__all__ = [
    "OUTPUT_STEPS",
    "INPUT_STEPS",
    "OPTION_KEYS",
    "PipelineBuilder",
    "normalize_steps",
    "validate_options",
    "combine_steps",
]

OUTPUT_STEPS = ("sanitize", "redact", "project", "annotate")
INPUT_STEPS = ("guard_secrets", "depseudonymize")
MODES = ("append", "prepend", "replace")

#: Known option keys per step, with a check for each value.
OPTION_KEYS: dict[str, dict[str, str]] = {
    "sanitize": {"strip_invisible": "bool", "fence_injections": "bool",
                 "extra_phrases": "regexes", "untrusted_keys": "globs"},
    "redact": {"strategies": "strategies", "key_rules": "bool", "extra_keys": "entities",
               "keep": "names", "decode": "bool"},
    "project": {"include": "globs", "exclude": "globs", "max_list": "count",
                "max_string": "count", "max_chars": "count"},
    "annotate": {"audience": "names", "notice": "bool"},
    "guard_secrets": {"kinds": "kinds", "entropy": "bool"},
    "depseudonymize": {},
}

Steps = dict[str, dict[str, Any]]
#: What ``_cached`` builds and keeps: a step, or the redactor steps share.
_Step = TypeVar("_Step")


def normalize_steps(entries: Any, place: str, direction: str = "output") -> Steps:
    """``[name | {name: options}]`` → ``{name: options}``; ValueError names the place."""
    known = OUTPUT_STEPS if direction == "output" else INPUT_STEPS
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise ValueError(f"{place}: give a list of transform names (or {{name: options}})")
    out: Steps = {}
    for i, entry in enumerate(entries):
        where = f"{place}[{i}]"
        options: Any
        if isinstance(entry, str):
            name, options = entry, {}
        elif isinstance(entry, dict) and len(entry) == 1:
            name, options = next(iter(entry.items()))
            options = {} if options is None else options
        else:
            raise ValueError(f"{where}: give a transform name or a one-key {{name: options}}")
        if name not in known:
            raise ValueError(
                f"{where}: unknown {direction} transform {name!r}; use one of {', '.join(known)}"
            )
        validate_options(name, options, f"{where}.{name}")
        out[name] = {**out.get(name, {}), **options}
    return out


def combine_steps(current: Steps, entries: Steps, mode: str) -> Steps:
    """Apply a rule's steps to the running list (options of a repeated step merge)."""
    if mode == "replace":
        return {k: dict(v) for k, v in entries.items()}
    # Listed later wins for options of a step named twice (order of steps is fixed anyway).
    first, second = (entries, current) if mode == "prepend" else (current, entries)
    out: Steps = {k: dict(v) for k, v in first.items()}
    for name, options in second.items():
        out[name] = {**out.get(name, {}), **options}
    return out


def validate_options(step: str, options: Any, place: str) -> None:
    if step not in OPTION_KEYS:
        raise ValueError(
            f"{place}: unknown transform {step!r}; use one of "
            f"{', '.join((*OUTPUT_STEPS, *INPUT_STEPS))}"
        )
    if not isinstance(options, dict):
        raise ValueError(f"{place}: options must be a mapping")
    schema = OPTION_KEYS[step]
    for key, value in options.items():
        if key not in schema:
            known = ", ".join(schema) or "none"
            raise ValueError(f"{place}: unknown option {key!r}; known options: {known}")
        _check(schema[key], value, f"{place}.{key}")


def _check(kind: str, value: Any, place: str) -> None:
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{place}: must be true or false")
    elif kind == "count":
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            raise ValueError(f"{place}: must be a positive integer (or null for no limit)")
    elif kind in ("globs", "names", "regexes", "kinds"):
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ValueError(f"{place}: must be a list of non-empty strings")
        if kind == "globs":
            for v in value:
                if v.count("[") != v.count("]"):
                    raise ValueError(f"{place}: malformed glob {v!r} (unbalanced [])")
        if kind == "regexes":
            for v in value:
                try:
                    re.compile(v)
                except re.error as exc:
                    raise ValueError(f"{place}: not a valid regular expression ({exc})") from None
        if kind == "kinds":
            bad = [v for v in value if v not in KINDS]
            if bad:
                raise ValueError(f"{place}: unknown kind {bad[0]!r}; use {', '.join(KINDS)}")
    elif kind == "strategies":
        if not isinstance(value, dict):
            raise ValueError(f"{place}: must map entity, detector or kind names to strategies")
        for name, strategy in value.items():
            if not isinstance(name, str) or strategy not in STRATEGIES:
                raise ValueError(
                    f"{place}.{name}: unknown strategy {strategy!r}; use one of "
                    f"{', '.join(STRATEGIES)}"
                )
    elif kind == "entities" and (not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, str) and v for k, v in value.items()
    )):
        raise ValueError(f"{place}: must map key-name globs to entity names")


class PipelineBuilder:
    """Turns step settings into (cached) pipelines for one policy."""

    def __init__(
        self,
        *,
        policy_name: str = "",
        options: Mapping[str, Mapping[str, Any]] | None = None,
        detectors: Sequence[Mapping[str, Any]] = (),
        disabled_detectors: Iterable[str] = (),
    ) -> None:
        self.policy_name = policy_name
        self.options = {k: dict(v) for k, v in (options or {}).items()}
        self.custom: list[Detector] = [
            custom_detector(dict(spec), f"detectors[{i}]") for i, spec in enumerate(detectors)
        ]
        self.disabled = tuple(disabled_detectors)
        known = {d.name for d in self.custom} | _builtin_names()
        unknown = [n for n in self.disabled if n not in known]
        if unknown:
            raise ValueError(
                f"disabled_detectors: unknown detector {unknown[0]!r}; list them with "
                "list_detectors"
            )
        self._steps: dict[str, object] = {}

    def _options(self, name: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
        merged = dict(self.options.get(name, {}))
        for key, value in overrides.items():
            if isinstance(value, dict) and isinstance(merged.get(key), dict):
                merged[key] = {**merged[key], **value}
            else:
                merged[key] = value
        return merged

    def _cached(self, key: str, make: Callable[[], _Step]) -> _Step:
        step = self._steps.get(key)
        if step is None:
            step = make()
            if len(self._steps) > 512:
                self._steps.clear()
            self._steps[key] = step
        return cast("_Step", step)

    def redactor(self, options: Mapping[str, Any], *, reveal: bool = False) -> Redactor:
        opts = self._options("redact", options)
        strategies = dict(opts.get("strategies") or {})
        if reveal:  # a reveal tool shows originals: never pseudonymise its output again
            strategies = {k: ("keep" if v == "pseudonymize" else v) for k, v in strategies.items()}
        key = "redactor:" + json.dumps([strategies, opts], sort_keys=True, default=str)
        return self._cached(key, lambda: Redactor(
            strategies=strategies,
            detectors=self.custom,
            disabled=self.disabled,
            key_rules=opts.get("key_rules", True),
            extra_keys=opts.get("extra_keys"),
            keep=opts.get("keep", ()),
            decode=opts.get("decode", True),
        ))

    def output(self, steps: Steps, *, reveal: bool = False, hints: Mapping[str, Any] | None = None
               ) -> Pipeline:
        """The output pipeline for these steps (fixed order; sanitize+redact fused)."""
        if not steps:
            return Pipeline()
        hints = dict(hints or {})
        built: list[Transform] = []
        san = red = None
        untrusted: tuple[str, ...] = ()
        if "sanitize" in steps:
            s_opts = self._options("sanitize", steps["sanitize"])
            untrusted = tuple(s_opts.get("untrusted_keys", ())) + tuple(
                hints.get("untrusted_keys", ()))
            san = Sanitizer.build(
                strip_invisible=s_opts.get("strip_invisible", True),
                fence_injections=s_opts.get("fence_injections", True),
                extra_phrases=s_opts.get("extra_phrases", ()),
            )
        if "redact" in steps:
            red = self.redactor(steps["redact"], reveal=reveal)
        if san is not None or red is not None:
            key = "text:" + json.dumps(
                [sorted(steps.get("sanitize", {}).items()) if san else None, untrusted,
                 id(red)], default=str,
            )
            built.append(self._cached(
                key, lambda: TextPass(sanitizer=san, redactor=red, untrusted_keys=untrusted)
            ))
        if "project" in steps:
            p = self._options("project", steps["project"])
            key = "project:" + json.dumps(p, sort_keys=True)
            built.append(self._cached(key, lambda: Project(
                include=p.get("include", ()), exclude=p.get("exclude", ()),
                max_list=p.get("max_list"), max_string=p.get("max_string"),
                max_chars=p.get("max_chars"),
            )))
        if "annotate" in steps:
            a = self._options("annotate", steps["annotate"])
            key = "annotate:" + json.dumps(a, sort_keys=True)
            built.append(self._cached(key, lambda: Annotate(
                policy=self.policy_name, audience=a.get("audience", ("user", "assistant")),
                notice=a.get("notice", True),
            )))
        return Pipeline(built)

    def input(self, steps: Steps, *, depseudonymize: bool) -> Pipeline:
        built: list[Transform] = []
        if "guard_secrets" in steps:
            g = self._options("guard_secrets", steps["guard_secrets"])
            key = "guard:" + json.dumps(g, sort_keys=True)
            built.append(self._cached(key, lambda: GuardSecrets(
                kinds=g.get("kinds", ("secret", "credential")),
                entropy=g.get("entropy", False),
                detectors=self.custom, disabled=self.disabled,
            )))
        if depseudonymize or "depseudonymize" in steps:
            built.append(self._cached("depseudonymize", Depseudonymize))
        return Pipeline(built)

    def pseudonymizes(self, steps: Steps) -> bool:
        """Whether outputs built from ``steps`` can carry pseudonyms."""
        if "redact" not in steps:
            return False
        opts = self._options("redact", steps["redact"])
        return "pseudonymize" in (opts.get("strategies") or {}).values() or any(
            d.strategy == "pseudonymize" for d in self.custom
        )


def _builtin_names() -> set[str]:
    from .detectors import detector_names

    return set(detector_names())
