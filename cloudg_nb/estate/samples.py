"""Sample estates by name: ``demo`` (the story estate), ``drifted`` and ``scaled(n)``.

The demo tables live in ``demo_estate`` (which also writes the shipped ``data/demo`` files)
and the generator in ``scaled_estate``; this module picks one by name for the ``sample_estate`` tool
and keeps the old import paths.
"""

from __future__ import annotations

from ..layer.errors import InvalidArgumentsError
from .dataset import Dataset
from .demo_estate import (
    AZ_SUB,
    DEMO_DATA_DIR,
    GCP_PROJECT,
    PARTNER,
    PROD,
    SHARED,
    demo,
    drifted,
    write_demo_files,
)
from .scaled_estate import MAX_SCALED, scaled

__all__ = ["demo", "drifted", "scaled", "sample", "SAMPLES", "DEMO_DATA_DIR", "MAX_SCALED",
           "AZ_SUB", "GCP_PROJECT", "PROD", "SHARED", "PARTNER", "write_demo_files"]

SAMPLES = ("demo", "drifted", "scaled")


def sample(kind: str = "demo", *, n: int | None = None, seed: int = 7,
           name: str | None = None) -> Dataset:
    """A sample estate by kind: ``demo``, ``drifted`` or ``scaled`` (with ``n`` assets)."""
    from .models import close_matches

    key = str(kind).strip().lower()
    if key == "demo":
        return demo(name or "demo")
    if key == "drifted":
        return drifted(name or "demo-drifted")
    if key == "scaled":
        return scaled(n or 10_000, seed=seed, name=name)
    raise InvalidArgumentsError(
        "Unknown sample estate; use demo, drifted or scaled.",
        data={"field": "kind", "close_matches": close_matches(key, SAMPLES),
              "allowed": list(SAMPLES)})
