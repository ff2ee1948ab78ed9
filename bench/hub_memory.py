"""Memory per analyst under JupyterHub, next to a plain JupyterLab server, in one run: what a
team sizes its hub by.

Each row runs ``notebooks/01-quickstart.ipynb`` (its code cells in order, in a kernel the server
starts, over the kernel websocket, as JupyterLab runs them) and reads the resident memory
(RSS, and PSS: shared pages split between the processes sharing them) of the server and of the
kernel from ``/proc``: idle before the notebook, and after it.
Rows: (1) a single-user server of a real JupyterHub (``jupyterhub-singleuser`` with cloudg,
from the documented config, reached through the hub's proxy; ``tests/hub/hub.py``); (2) a
JupyterLab server with cloudg (no hub); (3) the peer: a plain JupyterLab server (the cloudg
extension disabled), where the same notebook runs cloudg in the kernel (local mode).
Run from the repository root: ``python bench/hub_memory.py [--rounds N] [--json]``; the hub row
needs JupyterHub's proxy (``make hub-deps``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "01-quickstart.ipynb"
#: Seconds a server rests after start (and the kernel after the notebook) before reading.
SETTLE = 2.0
CELL_TIMEOUT = 300.0


def notebook_cells(path: Path = NOTEBOOK) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def memory_kb(pid: int) -> dict[str, int]:
    """RSS and PSS of ``pid`` in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(next(line.split()[1] for line in status.splitlines()
                   if line.startswith("VmRSS:")))
    pss = 0
    with contextlib.suppress(OSError):
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        pss = int(next(line.split()[1] for line in rollup.splitlines()
                       if line.startswith("Pss:")))
    return {"rss": rss, "pss": pss}


def kernel_pid(server_pid: int) -> int:
    """The ipykernel process among the server's children."""
    for task in Path(f"/proc/{server_pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"ipykernel" in cmdline:
                return int(child)
    raise LookupError("the server has no kernel process")


def run_notebook(server: Any, server_pid: int) -> dict[str, Any]:
    """Idle server memory, then the quickstart in a new kernel, then server + kernel memory."""
    from tests.notebook.kernel import server_kernel

    time.sleep(SETTLE)
    idle = memory_kb(server_pid)
    started = time.monotonic()
    with server_kernel(server) as kernel:
        for number, code in enumerate(notebook_cells(), 1):
            result = kernel.execute(code, timeout=CELL_TIMEOUT)
            if not result.ok:
                raise RuntimeError(f"cell {number} failed:\n{code}\n{result.text}\n"
                                   f"{result.error}")
        seconds = time.monotonic() - started
        mode = kernel.value("__import__('cloudg_nb.notebook').notebook.default_client().mode")
        time.sleep(SETTLE)
        after = memory_kb(server_pid)
        kernel_memory = memory_kb(kernel_pid(server_pid))
    return {"server_idle": idle, "server": after, "kernel": kernel_memory,
            "notebook_s": round(seconds, 1), "kernel_backend": mode}


@contextlib.contextmanager
def hub_server(tmp: Path) -> Iterator[tuple[Any, int]]:
    from tests.hub.hub import jupyterhub

    with jupyterhub(tmp) as hub:
        hub.start_server("alice")
        token = hub.user_token("alice", ["access:servers!user=alice"])
        port = hub.url.rstrip("/").rsplit(":", 1)[1]
        target = SimpleNamespace(url=hub.server_url("alice"), token=token,
                                 host_port=f"127.0.0.1:{port}", base_url="/user/alice/")
        yield target, int(hub.user_model("alice")["servers"][""]["state"]["pid"])


@contextlib.contextmanager
def lab_server(tmp: Path, with_cloudg: bool) -> Iterator[tuple[Any, int]]:
    from tests.notebook.kernel import notebook_server

    config = {} if with_cloudg else {"ServerApp": {"jpserver_extensions": {
        "cloudg_jupyter": False}}}
    with notebook_server(tmp, extra_args=(), config=config,
                         wait_for_extension=with_cloudg) as server:
        yield server, server.proc.pid


ROWS = (
    ("JupyterHub single-user server + cloudg", "hub", hub_server),
    ("JupyterLab server + cloudg", "lab", lambda tmp: lab_server(tmp, True)),
    ("plain JupyterLab server (peer)", "plain", lambda tmp: lab_server(tmp, False)),
)


def run(rounds: int, kinds: list[str]) -> dict[str, Any]:
    samples: dict[str, list[dict[str, Any]]] = {kind: [] for _, kind, _ in ROWS}
    for _ in range(rounds):
        for _, kind, start in ROWS:  # rounds interleave the rows: drift hits each alike
            if kind not in kinds:
                continue
            with tempfile.TemporaryDirectory(prefix=f"hub-memory-{kind}-") as tmp, \
                    start(Path(tmp)) as (server, pid):
                samples[kind].append(run_notebook(server, pid))
    rows = []
    for label, kind, _ in ROWS:
        if not samples[kind]:
            continue
        rows.append({"row": label, "kind": kind, "rounds": len(samples[kind]),
                     **summarise(samples[kind]), "samples": samples[kind]})
    return {"notebook": str(NOTEBOOK.relative_to(ROOT)), "rows": rows,
            "environment": {"python": platform.python_version(), "machine": platform.machine(),
                            "cpus": __import__("os").cpu_count()}}


def summarise(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians in MiB of each figure over the rounds, and the spread of the total RSS."""
    def mib(pick: Any) -> float:
        return round(statistics.median(pick(s) for s in samples) / 1024, 1)

    totals = [(s["server"]["rss"] + s["kernel"]["rss"]) / 1024 for s in samples]
    return {
        "server_idle_rss_mib": mib(lambda s: s["server_idle"]["rss"]),
        "server_rss_mib": mib(lambda s: s["server"]["rss"]),
        "kernel_rss_mib": mib(lambda s: s["kernel"]["rss"]),
        "total_rss_mib": mib(lambda s: s["server"]["rss"] + s["kernel"]["rss"]),
        "total_pss_mib": mib(lambda s: s["server"]["pss"] + s["kernel"]["pss"]),
        "total_rss_spread_mib": round(max(totals) - min(totals), 1),
        "notebook_s": statistics.median(s["notebook_s"] for s in samples),
        "kernel_backend": samples[0]["kernel_backend"],
    }


def format_report(report: dict[str, Any]) -> str:
    header = (f"{'':42} {'server idle':>11} {'server':>8} {'kernel':>8} {'total':>8} "
              f"{'total PSS':>9} {'spread':>7} {'notebook':>9}  kernel's cloudg")
    lines = [f"Memory per server after {report['notebook']} (RSS in MiB; median of rounds; "
             "spread: max - min total RSS)", "", header]
    for row in report["rows"]:
        lines.append(
            f"{row['row']:42} {row['server_idle_rss_mib']:>11} {row['server_rss_mib']:>8} "
            f"{row['kernel_rss_mib']:>8} {row['total_rss_mib']:>8} {row['total_pss_mib']:>9} "
            f"{row['total_rss_spread_mib']:>7} {row['notebook_s']:>8}s  {row['kernel_backend']}")
    by_kind = {row["kind"]: row for row in report["rows"]}
    if "plain" in by_kind:
        peer = by_kind["plain"]["total_rss_mib"]
        for kind in ("hub", "lab"):
            if kind in by_kind:
                extra = round(by_kind[kind]["total_rss_mib"] - peer, 1)
                lines.append(f"{by_kind[kind]['row']}: {extra:+} MiB total RSS vs the plain "
                             "JupyterLab server")
    env = report["environment"]
    lines += ["", f"python {env['python']} on {env['machine']}, {env['cpus']} CPUs"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="servers started per row")
    parser.add_argument("--rows", nargs="+", default=[kind for _, kind, _ in ROWS],
                        choices=[kind for _, kind, _ in ROWS], help="which rows to run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    report = run(args.rounds, args.rows)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
