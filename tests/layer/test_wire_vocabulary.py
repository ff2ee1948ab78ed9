"""One vocabulary: cloudg's resource URIs, ``_meta`` keys and URL paths are spelled out only in
``cloudg_nb/layer/wire.py``; every other module of ``cloudg_nb`` and ``cloudg_jupyter`` takes
them from there, and the URI builders give what the registered templates match.

The scan reads every module with ``ast``: a string constant that contains ``cloudg://`` or
starts with ``cloudg/`` fails it, the constant parts of f-strings included. Docstrings (the first
statement of a module, class or function) are excepted: they describe the vocabulary, and no
code reads them. Comments are not string constants, so they are free too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cloudg_nb.layer import wire

ROOT = Path(__file__).resolve().parents[2]
WIRE = ROOT / "cloudg_nb" / "layer" / "wire.py"
PACKAGES = (ROOT / "cloudg_nb", ROOT / "jupyter_server_ext" / "cloudg_jupyter")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants in ``tree``."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def vocabulary_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string constant in ``source`` that spells out cloudg vocabulary:
    contains ``cloudg://`` or starts with ``cloudg/`` (f-string parts count; docstrings not)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in skip
            and ("cloudg://" in node.value or node.value.startswith("cloudg/"))]


def test_the_scan_finds_plain_and_f_string_literals_but_not_docstrings() -> None:
    source = '''"""Reads cloudg://workspace and posts to cloudg/mcp."""
def read(name):
    """The summary at cloudg://datasets/NAME/summary."""
    return f"cloudg://datasets/{name}/summary", "cloudg/error_code", "see cloudg/x"
URI = "cloudg://activity"
'''
    assert sorted(vocabulary_literals(source)) == [
        (4, "cloudg/error_code"), (4, "cloudg://datasets/"), (5, "cloudg://activity")]


def test_no_module_but_wire_spells_out_a_cloudg_uri_meta_key_or_path() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted(package.rglob("*.py")):
            if path == WIRE:
                continue
            where = path.relative_to(ROOT).as_posix()
            found += [f"{where}:{line}: {text!r}"
                      for line, text in vocabulary_literals(path.read_text())]
    assert found == [], "take these from cloudg_nb.layer.wire instead of spelling them out"


def test_every_meta_key_is_in_the_cloudg_namespace() -> None:
    keys = {name: getattr(wire, name) for name in wire.__all__
            if name.endswith("_META") or name.endswith("_STATE_KEY")}
    assert keys and all(value.startswith(wire.META_PREFIX) for value in keys.values())
    assert len(set(keys.values())) == len(keys)


def test_every_resource_uri_and_template_has_the_cloudg_scheme() -> None:
    uris = {name: getattr(wire, name) for name in wire.__all__
            if name.endswith("_URI") or name.endswith("_TEMPLATE")}
    assert uris and all(value.startswith(wire.URI_SCHEME) for value in uris.values())
    assert len(set(uris.values())) == len(uris)


@pytest.mark.parametrize(("built", "template", "value"), [
    (wire.dataset_uri("prod.v2", "summary"), wire.DATASET_SUMMARY_TEMPLATE, "prod.v2"),
    (wire.dataset_uri("prod.v2", "assets"), wire.DATASET_ASSETS_TEMPLATE, "prod.v2"),
    (wire.dataset_uri("prod.v2", "findings"), wire.DATASET_FINDINGS_TEMPLATE, "prod.v2"),
    (wire.asset_uri("i-0abc"), wire.ASSET_TEMPLATE, "i-0abc"),
    (wire.finding_uri("F-1"), wire.FINDING_TEMPLATE, "F-1"),
    (wire.activity_since_uri(42), wire.ACTIVITY_SINCE_TEMPLATE, "42"),
])
def test_uri_builders_fill_the_registered_templates(built: str, template: str,
                                                    value: str) -> None:
    variable = template[template.index("{"):template.index("}") + 1]
    assert built == template.replace(variable, value)


def test_dataset_uris_are_its_summary_assets_and_findings() -> None:
    assert wire.dataset_uris("a") == (wire.summary_uri("a"), "cloudg://datasets/a/assets",
                                      "cloudg://datasets/a/findings")
    assert wire.summary_uri("a") == "cloudg://datasets/a/summary"


def test_the_extension_paths_are_the_ones_clients_are_configured_with() -> None:
    assert (wire.ENDPOINT_PATH, wire.STATUS_PATH, wire.ASSISTANTS_API_PATH) == (
        "cloudg/mcp", "cloudg/api/status", "cloudg/api/assistants")
    assert wire.STATUS_PATH.startswith(wire.API_PATH + "/")
    assert wire.ASSISTANTS_API_PATH.startswith(wire.API_PATH + "/")
