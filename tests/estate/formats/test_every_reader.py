"""Every reader on every sample file: a file forced through a reader that does not fit fails
with a DatasetLoadError naming the file (never another exception), and says which kind fits
when another reader does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cloudg_nb.estate import DatasetLoadError, detect_format, load_path
from cloudg_nb.estate.formats import FORMATS

DATA = Path(__file__).parents[1] / "data"
SAMPLES = sorted(p for p in DATA.rglob("*") if p.is_file() and p.suffix != ".md")
KINDS = [k for k in FORMATS if k != "auto"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: str(p.relative_to(DATA)))
def test_a_forced_reader_loads_the_file_or_fails_with_a_load_error(
        tmp_path: Path, sample: Path, kind: str) -> None:
    path = tmp_path / sample.name
    shutil.copy(sample, path)
    fits = detect_format(path)
    try:
        load_path(path, kind=kind)
    except DatasetLoadError as err:
        assert err.file in (path.name, path.parent.name), err.message
        if fits != kind:
            assert f"kind={fits}" in err.problem, err.problem
