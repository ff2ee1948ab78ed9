"""The demo tables are the one source of the shipped demo files."""

from __future__ import annotations

from pathlib import Path

from cloudg_nb.estate.demo_estate import DEMO_DATA_DIR, write_demo_files


def test_shipped_demo_files_are_what_the_demo_tables_write(tmp_path: Path) -> None:
    written = write_demo_files(tmp_path)
    assert sorted(p.name for p in written) == ["findings.json", "inventory-map.json"]
    for path in written:
        assert path.read_bytes() == (DEMO_DATA_DIR / path.name).read_bytes(), (
            f"{path.name} differs from the demo tables: run "
            "cloudg_nb.estate.demo_estate.write_demo_files() to regenerate it"
        )
