"""The notebook API is reachable from ``cloudg_nb`` and costs nothing until used."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap


def _probe(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_package_loads_no_client_kernel_or_widget_code() -> None:
    loaded = _probe("""
        import json, sys
        import cloudg_nb, cloudg_nb.notebook
        heavy = ("mcp", "httpx2", "IPython", "ipywidgets", "cloudg_nb.notebook.client")
        print(json.dumps(sorted(m for m in heavy if m in sys.modules)))
    """)
    assert loaded == []


def test_notebook_names_resolve_lazily_from_the_package() -> None:
    names = _probe("""
        import json
        import cloudg_nb
        from cloudg_nb.notebook.client import Client, connect, local
        from cloudg_nb.notebook.live import LiveFrame
        from cloudg_nb.notebook.magics import load_ipython_extension
        print(json.dumps([cloudg_nb.Client is Client, cloudg_nb.connect is connect,
                          cloudg_nb.local is local, cloudg_nb.LiveFrame is LiveFrame,
                          cloudg_nb.load_ipython_extension is load_ipython_extension,
                          callable(cloudg_nb.unload_ipython_extension)]))
    """)
    assert names == [True] * 6
