"""AWS inventory files: ``aws_kind_of(doc)`` says ``aws-config`` or ``aws-describe`` for a
parsed document, ``aws_folder_kind`` for a folder (by the start of each ``*.json``), and
``read_aws`` reads one file, or every AWS file of a folder into one dataset (other JSON files
are named in a warning). A single file of the other AWS kind is refused naming the kind that
fits.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..dataset import Dataset
from ..errors import DatasetLoadError
from .aws_config import config_items, read_config_items
from .aws_describe import fill_regions, looks_like_aws_describe, read_describe
from .aws_inventory import AwsInventory
from .jsonio import read_json
from .load_report import LoadReport

__all__ = ["AWS_CONFIG", "AWS_DESCRIBE", "aws_kind_of", "aws_folder_kind", "read_aws"]

AWS_CONFIG = "aws-config"
AWS_DESCRIBE = "aws-describe"
_LABEL = {AWS_CONFIG: "AWS Config items (a configuration snapshot or select-resource-config "
                      "output)",
          AWS_DESCRIBE: "EC2 describe-* output (describe-instances, describe-security-groups, "
                        "describe-subnets, describe-vpcs)"}
_HEAD_DESCRIBE = re.compile(r'^\s*\{\s*"(Reservations|SecurityGroups|Subnets|Vpcs)"\s*:\s*\[')
_HEAD_CONFIG = re.compile(r'"(configurationItems|baseConfigurationItems)"\s*:\s*\[|'
                          r'"Results"\s*:\s*\[\s*"\{\\"|"fileVersion"\s*:')


def aws_kind_of(doc: Any) -> str | None:
    """``aws-config``, ``aws-describe`` or None for a parsed JSON document."""
    if config_items(doc) is not None:
        return AWS_CONFIG
    if looks_like_aws_describe(doc):
        return AWS_DESCRIBE
    return None


def _head_kind(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            head = fh.read(8192).decode("utf-8-sig", "replace")
    except OSError:
        return None
    if _HEAD_DESCRIBE.search(head):
        return AWS_DESCRIBE
    if _HEAD_CONFIG.search(head):
        return AWS_CONFIG
    return None


def _json_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".json")


def aws_folder_kind(folder: Path) -> str | None:
    """The AWS kind of a folder holding Config or describe-* files (by the start of each
    file; ``aws-config`` when it holds any Config file), else None."""
    kinds = {k for p in _json_files(folder) if (k := _head_kind(p))}
    if not kinds:
        return None
    return AWS_CONFIG if AWS_CONFIG in kinds else AWS_DESCRIBE


def read_aws(path: Path, *, kind: str, name: str = "dataset", strict: bool = False
             ) -> Dataset:
    """Read an AWS Config or describe-* file, or a folder of them, as one dataset."""
    folder = path.is_dir()
    files = _json_files(path) if folder else [path]
    report = LoadReport(path.name, strict=strict)
    inv = AwsInventory(report)
    read = 0
    for file in files:
        doc = read_json(file)
        found = aws_kind_of(doc)
        if found is None:
            if not folder:
                raise DatasetLoadError(
                    file.name, f"not {_LABEL[kind]}: expected a JSON object with "
                               + ("configurationItems or Results" if kind == AWS_CONFIG else
                                  "Reservations, SecurityGroups, Subnets or Vpcs"),
                    data={"kind": kind})
            report.warnings.append(f"{file.name} is neither AWS Config nor EC2 describe-* "
                                   "output; it was not read")
            continue
        if found != kind and not folder:
            raise DatasetLoadError(
                file.name, f"this is {_LABEL[found]}, not {_LABEL[kind]}; load it with "
                           f"kind={found} (or auto)", data={"kind": kind, "fits": found})
        if found == AWS_CONFIG:
            read_config_items(config_items(doc) or [], inv, file=file.name)
        else:
            read_describe(doc, inv, file=file.name)
        read += 1
    if folder and not read:
        raise DatasetLoadError(path.name, f"the folder holds no {_LABEL[kind]}",
                               data={"kind": kind})
    fill_regions(inv)
    return inv.dataset(name=name, file=path.name, kind=kind)
