"""%load_ext cloudg_nb in a plain `ipython -c` process: no server, so local mode is chosen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

IPYTHON = Path(sys.executable).with_name("ipython")

SCRIPT = """\
%load_ext cloudg_nb
%cloudg call find_assets internet_exposed=true -o df
%cloudg call find_asets -o bad
print("ROWS", len(df), ",".join(sorted(df["id"])), "bad" in dir())
"""


def _isolated_env(tmp_path: Path) -> dict[str, str]:
    """This environment minus everything that could point at a Jupyter server."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLOUDG_", "JPY_", "JUPYTERHUB_", "BINDER_"))}
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    env["IPYTHONDIR"] = str(tmp_path / "ipython")
    return env


def test_plain_ipython_loads_the_extension_and_calls_in_local_mode(tmp_path: Path) -> None:
    done = subprocess.run([str(IPYTHON), "--no-banner", "-c", SCRIPT], cwd=tmp_path,
                          env=_isolated_env(tmp_path), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    mode_lines = [line for line in out.splitlines() if line.startswith("cloudg: ")]
    assert len(mode_lines) == 1
    assert mode_lines[0].startswith("cloudg: local:")
    assert "no Jupyter server found" in mode_lines[0]
    assert "ROWS 4 aws-alb-web,aws-ec2-bastion,az-vm-jump,gcp-gce-kibana False" in out
    assert "Unknown tool 'find_asets'" in out and "did you mean: find_assets" in out
    assert "Traceback" not in out + done.stderr
