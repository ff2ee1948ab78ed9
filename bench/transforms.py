"""Cost of the privacy transforms, side by side with ``json.dumps`` of the same tool result.

For a realistic tool result (a list of cloud assets: ARNs, names, tags, IPs, descriptions,
with a few planted secrets) of about 100 KB and 1 MB, it times the ``standard`` policy's
output pipeline (sanitize+redact, project, annotate — what every default tool call pays) and
``json.dumps`` of the same value (the floor: the layer serialises every result anyway), then
prints the ratio. ``strict`` (pseudonyms too) is shown for information. Each call starts cold:
the scanners forget the strings they found clean before (a result read again, e.g. a page
refreshed, costs less).

Target: standard ≤ 10× json.dumps and ≤ 20 ms for 100 KB.
Run from the repository root:  ``python bench/transforms.py [--quick] [--json]``.
Figures, never a timed test.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from cloudg_nb import Principal, ToolSpec
from cloudg_nb.policy import Policy
from cloudg_nb.transforms import TransformContext

SIZES = {"100 KB": 100_000, "1 MB": 1_000_000}
TARGET_RATIO = 10.0
TARGET_MS_100KB = 20.0
FULL_PLAN = {"100 KB": (7, 15), "1 MB": (5, 3)}  # (rounds, calls per round)
QUICK_PLAN = {"100 KB": (2, 3), "1 MB": (2, 1)}

_WORDS = (
    "payments", "billing", "search", "checkout", "ledger", "analytics", "reporting", "ingest",
    "catalog", "identity", "gateway", "worker", "cache", "queue", "scheduler", "frontend",
    "backend", "etl", "ml",
)
_TYPES = (("ec2", "instance", "i-"), ("rds", "db", ""), ("lambda", "function", ""),
          ("s3", "", ""), ("iam", "role", ""), ("elasticloadbalancing", "loadbalancer/app", ""))
_REGIONS = ("eu-west-1", "us-east-1", "ap-southeast-2")
_ACCOUNTS = ("123456789012", "210987654321", "555566667777")


def _asset(rnd: random.Random, i: int) -> dict[str, Any]:
    svc, rtype, prefix = rnd.choice(_TYPES)
    account, region = rnd.choice(_ACCOUNTS), rnd.choice(_REGIONS)
    name = "-".join(rnd.sample(_WORDS, 2)) + f"-{rnd.choice(['prod', 'stage', 'dev'])}-{i:05d}"
    rid = prefix + "".join(rnd.choice("0123456789abcdef") for _ in range(17)) if prefix else name
    if svc == "s3":
        arn = f"arn:aws:s3:::{name}"
    else:
        arn = f"arn:aws:{svc}:{region}:{account}:{rtype}/{rid}"
    ip = f"10.{rnd.randint(0, 255)}.{rnd.randint(0, 255)}.{rnd.randint(1, 254)}"
    asset: dict[str, Any] = {
        "id": arn,
        "provider": "aws",
        "account_id": account,
        "region": region,
        "type": f"aws_{svc}_{rtype.split('/')[0] or 'bucket'}",
        "name": name,
        "state": rnd.choice(["running", "stopped", "available"]),
        "created_at": (
            f"2024-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T0{rnd.randint(0, 9)}:15:00Z"
        ),
        "private_ip": ip,
        "public_ip": rnd.choice([None, f"54.{rnd.randint(0, 255)}.{rnd.randint(0, 255)}.7"]),
        "dns_name": f"ip-{ip.replace('.', '-')}.{region}.compute.internal",
        "vpc_id": "vpc-" + "".join(rnd.choice("0123456789abcdef") for _ in range(8)),
        "security_groups": [f"sg-{rnd.randint(10**7, 10**8):x}" for _ in range(rnd.randint(1, 3))],
        "tags": {
            "Name": name,
            "env": rnd.choice(["prod", "stage", "dev"]),
            "team": rnd.choice(_WORDS),
            "owner": f"{rnd.choice(_WORDS)}-team@corp.example.org",
            "cost-center": str(rnd.randint(1000, 9999)),
        },
        "description": (
            f"{rnd.choice(_WORDS).title()} service for the {rnd.choice(_WORDS)} team, managed "
            f"by terraform module {rnd.choice(_WORDS)}/{rnd.choice(_WORDS)}."
        ),
        "encrypted": rnd.random() < 0.7,
        "size_gb": rnd.randint(8, 2000),
    }
    if i % 97 == 5:  # a few planted secrets, as real inventories have
        asset["tags"]["deploy_token"] = "".join(rnd.choice("ABCDEFGHabcdefgh0123456789")
                                                for _ in range(32))
    if i % 89 == 7:
        asset["user_data"] = "#!/bin/bash\nexport DB_PASSWORD='s3cr3t-" + str(i) + "'\n"
    if i % 101 == 9:
        asset["description"] += f" Legacy DSN postgresql://app:Pw-{i}-x9@db.internal/app"
    return asset


def realistic_result(size: int, seed: int = 7) -> dict[str, Any]:
    """``{"assets": [...], "total": n}`` whose compact JSON is about ``size`` characters."""
    rnd = random.Random(seed)
    assets: list[dict[str, Any]] = []
    length = 2
    while length < size:
        asset = _asset(rnd, len(assets))
        assets.append(asset)
        length += len(json.dumps(asset)) + 2
    return {"assets": assets, "total": len(assets)}


def _median_ms(fn: Callable[[], Any], rounds: int, calls: int) -> tuple[float, list[float]]:
    per_round = []
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        per_round.append((time.perf_counter() - start) / calls * 1000)
    return statistics.median(per_round), per_round


def run(quick: bool) -> dict[str, Any]:
    os.environ.setdefault("CLOUDG_MCP_VAULT_KEY", "bench-key")
    spec = ToolSpec(name="list_assets", handler=lambda ctx: {})
    principal = Principal.local()
    policies = {name: Policy.load(name) for name in ("standard", "strict")}
    pipelines = {name: p.output_pipeline(spec, principal) for name, p in policies.items()}
    scanners = {name: [step.redactor.scanner for step in pipeline
                       if getattr(step, "redactor", None) is not None]
                for name, pipeline in pipelines.items()}
    plan = QUICK_PLAN if quick else FULL_PLAN
    rows = []
    for label, size in SIZES.items():
        value = realistic_result(size)
        chars = len(json.dumps(value))
        rounds, calls = plan[label]

        def apply(name: str, value: dict[str, Any] = value) -> Any:
            for scanner in scanners[name]:
                scanner.forget()
            ctx = TransformContext(vault=policies[name].vault, spec=spec, principal=principal)
            return pipelines[name].apply(value, ctx)

        apply("standard")  # warm-up (caches of key decisions, regexes)
        apply("strict")
        cases = {
            "json.dumps": lambda value=value: json.dumps(value),
            "standard": lambda: apply("standard"),
            "strict": lambda: apply("strict"),
        }
        for case, fn in cases.items():
            median, per_round = _median_ms(fn, rounds, calls)
            rows.append({"size": label, "chars": chars, "assets": value["total"], "case": case,
                         "median_ms": median, "rounds_ms": per_round})
    ratios = []
    for label in SIZES:
        by_case = {r["case"]: r["median_ms"] for r in rows if r["size"] == label}
        for case in ("standard", "strict"):
            ratio = by_case[case] / by_case["json.dumps"]
            target = case == "standard"
            ok = ratio <= TARGET_RATIO and (label != "100 KB" or by_case[case] <= TARGET_MS_100KB)
            ratios.append({"size": label, "case": case, "ratio": ratio,
                           "target": target, "pass": ok if target else None})
    return {
        "rows": rows,
        "ratios": ratios,
        "environment": {"python": platform.python_version(), "machine": platform.machine(),
                        "cpus": os.cpu_count(), "quick": quick},
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        "privacy transforms vs json.dumps (median ms per call; same value, one process)",
        f"{'size':<8}{'chars':>10}{'json.dumps':>12}{'standard':>11}{'ratio':>8}"
        f"{'strict':>10}{'ratio':>8}  target (standard)",
    ]
    for label in SIZES:
        by_case = {r["case"]: r for r in report["rows"] if r["size"] == label}
        ratio = {r["case"]: r for r in report["ratios"] if r["size"] == label}
        base = by_case["json.dumps"]["median_ms"]
        std = by_case["standard"]["median_ms"]
        target = f"≤{TARGET_RATIO:g}×" + (f" and ≤{TARGET_MS_100KB:g} ms" if label == "100 KB"
                                           else "")
        verdict = "PASS" if ratio["standard"]["pass"] else "MISS"
        lines.append(
            f"{label:<8}{by_case['json.dumps']['chars']:>10}{base:>12.2f}{std:>11.2f}"
            f"{ratio['standard']['ratio']:>7.1f}×{by_case['strict']['median_ms']:>10.2f}"
            f"{ratio['strict']['ratio']:>7.1f}×  {target}: {verdict}"
        )
    env = report["environment"]
    lines.append(f"python {env['python']} on {env['machine']}, {env['cpus']} cpus"
                 + (" (quick run: rough figures)" if env["quick"] else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few calls only (smoke run)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    report = run(args.quick)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
