"""docs/jupyterhub.md holds what the hub tests run: its ``jupyterhub_config.py`` is the config
``tests/hub/hub.py`` starts a hub from (only folders and ports moved, test additions appended),
and its Zero to JupyterHub snippet is YAML with the settings the page describes. In process:
no hub starts here."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from .hub import DOC, documented_config, hub_config


def test_the_documented_config_is_the_start_of_the_tested_one(tmp_path: Path) -> None:
    tested = hub_config(tmp_path, 18000, "token")
    moved = documented_config().replace("/srv/cloudg-hub", str(tmp_path)) \
        .replace("127.0.0.1:8000", "127.0.0.1:18000")
    assert tested.startswith(moved)
    additions = tested[len(moved):]
    assert "allowed_users" not in additions and "authenticator_class" not in additions
    assert "CloudGExtension" not in additions  # the team's folder settings are the doc's own


def test_the_documented_config_sets_the_public_url_and_the_team_folder() -> None:
    config = documented_config()
    compile(config, "jupyterhub_config.py", "exec")
    assert "c.JupyterHub.public_url" in config
    assert "--CloudGExtension.allowed_roots=" in config
    assert "--CloudGExtension.datasets=team=" in config


def test_the_zero_to_jupyterhub_snippet_is_valid_yaml_with_the_team_mount() -> None:
    (snippet,) = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    values = yaml.safe_load(snippet)
    single = values["singleuser"]
    assert values["hub"]["config"]["JupyterHub"]["public_url"].startswith("https://")
    cloudg = single["extraFiles"]["cloudg"]
    assert cloudg["mountPath"].endswith(".json")
    settings = cloudg["data"]["CloudGExtension"]
    (mount,) = single["storage"]["extraVolumeMounts"]
    assert mount["readOnly"] is True
    assert settings["allowed_roots"] == [mount["mountPath"]]
    assert settings["datasets"] == [f"team={mount['mountPath']}"]
