"""Run the official MCP conformance suite against ``cloudg-nb serve --transport http``.

The suite (npm ``@modelcontextprotocol/conformance``) needs Node >= 22; the npm package
``node@22`` provides that binary. Both are installed once into ``.cache/conformance/`` at the
repository root (git-ignored) and reused. ``python -m tests.conformance.runner [--registry
MODULE:ATTR]`` prints the per-scenario table.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.protocol.harness import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "conformance"
SUITE_VERSION = "0.1.16"
SUITE_PACKAGE = f"@modelcontextprotocol/conformance@{SUITE_VERSION}"
NODE_PACKAGE = "node@22"
FIXTURE_REGISTRY = "tests.conformance.fixture:registry"
#: Scenarios that need server-to-client requests, which the layer does not offer yet.
NEEDS_CLIENT_REQUESTS = re.compile(r"sampling|elicitation")
_TIMESTAMP = re.compile(r"-\d{4}-\d\d-\d\dT[\d-]+Z$")


@dataclass
class ScenarioResult:
    name: str
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed


def _suite_paths(cache: Path) -> tuple[Path, Path]:
    modules = cache / "node_modules"
    return modules / ".bin" / "node", modules / "@modelcontextprotocol" / "conformance" / \
        "dist" / "index.js"


def _installed(cache: Path) -> bool:
    node, suite = _suite_paths(cache)
    meta = suite.parent.parent / "package.json"
    if not (node.exists() and suite.exists() and meta.exists()):
        return False
    if json.loads(meta.read_text()).get("version") != SUITE_VERSION:
        return False
    version = subprocess.run([str(node), "--version"], capture_output=True, text=True,
                             timeout=60).stdout.strip()
    return version.startswith("v22.")


def ensure_suite(cache: Path = CACHE) -> tuple[Path, Path]:
    """Install the suite and Node 22 into ``cache`` unless already there; return
    (node binary, suite entry point). One process installs at a time (``cache/.lock``): the
    suite's test processes may ask at once."""
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _installed(cache):
            npm = shutil.which("npm")
            if npm is None:
                raise RuntimeError("npm is needed to install the conformance suite")
            (cache / "package.json").write_text('{"private": true}\n')
            subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
                 SUITE_PACKAGE, NODE_PACKAGE],
                cwd=cache, check=True, timeout=600, stdout=subprocess.DEVNULL,
            )
            if not _installed(cache):
                raise RuntimeError("the conformance suite or Node 22 did not install correctly")
    return _suite_paths(cache)


def list_scenarios(node: Path, suite: Path) -> list[str]:
    out = subprocess.run([str(node), str(suite), "list", "--server"], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    return re.findall(r"^\s+- (\S+)", out, flags=re.MULTILINE)


def run_suite(url: str, node: Path, suite: Path) -> dict[str, ScenarioResult]:
    """Run every server scenario against ``url``; results per scenario from its checks.json."""
    with tempfile.TemporaryDirectory(prefix="conformance-") as out:
        subprocess.run(
            [str(node), str(suite), "server", "--url", url, "--suite", "all", "-o", out],
            capture_output=True, text=True, timeout=600, check=False,
        )
        results: dict[str, ScenarioResult] = {}
        for checks_file in sorted(Path(out).glob("server-*/checks.json")):
            name = _TIMESTAMP.sub("", checks_file.parent.name.removeprefix("server-"))
            result = ScenarioResult(name)
            for check in json.loads(checks_file.read_text()):
                bucket = {"SUCCESS": result.passed, "FAILURE": result.failed,
                          "WARNING": result.warnings}.get(check["status"])
                if bucket is not None:
                    bucket.append(check["id"])
            results[name] = result
    return results


@contextmanager
def http_server(registry: str | None = None, *, policy: str | None = None,
                timeout: float = 60.0) -> Iterator[str]:
    """``cloudg-nb serve --transport http`` on a free 127.0.0.1 port; yields its URL."""
    with ServerProcess(registry=registry, policy=policy, timeout=timeout) as server:
        yield server.url


def format_table(results: dict[str, ScenarioResult]) -> str:
    rows = ["| scenario | result | checks passed | failed | warnings |", "|---|---|---|---|---|"]
    for name, r in results.items():
        verdict = "pass" if r.ok else "FAIL"
        warned = f"{len(r.warnings)} ({', '.join(r.warnings)})" if r.warnings else "0"
        rows.append(f"| {name} | {verdict} | {len(r.passed)} | {len(r.failed)} | {warned} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--registry", help="MODULE:ATTR to serve (default: built-in catalog)")
    parser.add_argument("--policy", help="policy profile for the server (default: its default)")
    args = parser.parse_args(argv)
    node, suite = ensure_suite()
    with http_server(args.registry, policy=args.policy) as url:
        results = run_suite(url, node, suite)
    print(format_table(results))
    return 0 if all(r.ok for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
