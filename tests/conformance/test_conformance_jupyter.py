"""The official MCP conformance suite against ``{base_url}cloudg/mcp`` inside a real Jupyter
server: the scenarios the standalone ``cloudg-nb serve --transport http`` passes pass there
too. The suite's CLI (0.1.16) cannot send headers, so the Jupyter token rides in ``?token=``,
which Jupyter's identity provider accepts on any handler.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.jupyter.server import jupyter_server

from .runner import (
    FIXTURE_REGISTRY,
    ScenarioResult,
    ensure_suite,
    format_table,
    http_server,
    run_suite,
)
from .test_conformance import DEFAULT_CATALOG_SCENARIOS

pytestmark = [pytest.mark.server, pytest.mark.clients]


@pytest.fixture(scope="module")
def suite() -> tuple[Path, Path]:
    return ensure_suite()


def _jupyter_run(suite: tuple[Path, Path], tmp_path: Path, *extra_args: str,
                 base_url: str = "/") -> dict[str, ScenarioResult]:
    with jupyter_server(tmp_path, base_url=base_url, extra_args=extra_args) as server:
        return run_suite(f"{server.endpoint}?token={server.token}", *suite)


def _passing(results: dict[str, ScenarioResult]) -> set[str]:
    return {name for name, r in results.items() if r.ok and (r.passed or r.warnings)}


def test_jupyter_endpoint_passes_every_scenario_the_standalone_server_passes(
    suite: tuple[Path, Path], tmp_path: Path,
) -> None:
    # Same fixture registry and policy as the standalone run; inside Jupyter it is merged
    # into the built-in catalog, and the server sits under a non-root base_url.
    with http_server(FIXTURE_REGISTRY, policy="open") as url:
        standalone = run_suite(url, *suite)
    inside = _jupyter_run(suite, tmp_path, f"--CloudGExtension.registry={FIXTURE_REGISTRY}",
                          "--CloudGExtension.policy=open", "--CloudGExtension.datasets=[]",
                          base_url="/user/alice/")
    print(format_table(inside))
    expected = _passing(standalone)
    assert len(expected) >= 25, sorted(expected)  # the comparison is not vacuous
    missing = expected - _passing(inside)
    assert not missing, {name: inside[name].failed if name in inside else "did not run"
                         for name in sorted(missing)}


def test_jupyter_endpoint_with_its_default_configuration_passes_the_core_scenarios(
    suite: tuple[Path, Path], tmp_path: Path,
) -> None:
    results = _jupyter_run(suite, tmp_path)  # standard policy, demo estate preloaded
    print(format_table(results))
    for name in DEFAULT_CATALOG_SCENARIOS:
        assert name in results, f"{name} did not run"
        assert results[name].ok, (name, results[name].failed)
        assert results[name].passed, name
