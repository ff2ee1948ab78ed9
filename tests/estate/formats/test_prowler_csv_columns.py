"""The column-wise Prowler CSV path loads exactly what the row path loads: the same four
frames (values and dtypes), the same load report (counts, skipped rows, notes, warnings),
the same strict-mode error; on every CSV fixture, odd cells and a generated scan."""

from __future__ import annotations

import gc
import importlib.util
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from cloudg_nb.estate import DatasetLoadError
from cloudg_nb.estate.formats import prowler_csv_columns, prowler_csv_scan
from cloudg_nb.estate.formats.prowler_csv import read_prowler_csv, read_prowler_csv_by_row
from cloudg_nb.estate.formats.prowler_csv_columns import PYTHON_SPACES, read_columns

from .prowler_scans import SCANS, write_csv
from .test_prowler_csv import _BAD_ROWS, COLUMNS, ROWS, SG, _csv, _row

DATA = Path(__file__).resolve().parents[1] / "data"
BENCH = Path(__file__).resolve().parents[3] / "bench" / "loaders.py"


@pytest.fixture(autouse=True, params=["one reader", "two readers"])
def _readers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case runs with one Arrow reader, and with two splitting the file where a row
    starts near its middle (as files of ``SPLIT_FROM`` bytes and more are read)."""
    if request.param == "two readers":
        monkeypatch.setattr(prowler_csv_scan, "SPLIT_FROM", 0)


def _bench_generator() -> object:
    spec = importlib.util.spec_from_file_location("bench_loaders", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _assert_same_load(path: Path, *, strict: bool = False) -> None:
    by_row = read_prowler_csv_by_row(path, strict=strict)
    by_column = read_columns(path, strict=strict)
    assert by_column is not None, "pandas parses this file: the column-wise path must run"
    for frame in ("assets", "findings", "edges", "compliance"):
        pd.testing.assert_frame_equal(getattr(by_column, frame), getattr(by_row, frame),
                                      check_exact=True, obj=frame)
    assert by_column.load_report == by_row.load_report
    assert (by_column.kind, by_column.source) == (by_row.kind, by_row.source)


def _with(cells: dict[str, str], base: str = ROWS[0]) -> str:
    values = base.split(";")
    for column, value in cells.items():
        values[COLUMNS.index(column)] = value
    return ";".join(values)


def test_the_documented_rows_load_alike(tmp_path: Path) -> None:
    _assert_same_load(_csv(tmp_path, ROWS))


@pytest.mark.parametrize("case", sorted(_BAD_ROWS))
def test_a_bad_row_is_skipped_alike(tmp_path: Path, case: str) -> None:
    _assert_same_load(_csv(tmp_path, [ROWS[0], _BAD_ROWS[case][0], ROWS[2]]))


@pytest.mark.parametrize("value", ["", "{'a': 1}", "[1, 2]", "9" * 40, "é\u202e", "=cmd()",
                                   "  padded  ", "\x1cfile-separator\x1f", "\u3000wide\u3000",
                                   "a=1 | b:2 | =x | c=", "FW: 1, 1 | FW: 2 | :x",
                                   "account:123456789012", "Critical", "warning", "true",
                                   "k8s", "x/", "/"])
def test_odd_values_in_every_column_load_alike(tmp_path: Path, value: str) -> None:
    _assert_same_load(_csv(tmp_path, [_with({column: value}) for column in COLUMNS]))


@pytest.mark.parametrize("header_each", [False, True])
def test_scans_of_seven_providers_in_one_csv_load_alike(tmp_path: Path, header_each: bool
                                                       ) -> None:
    path = write_csv(tmp_path / "scans.csv", [*SCANS, "aws"], header_each=header_each)
    _assert_same_load(path)  # (aws twice: merged; kubelet-config in two clusters: apart)
    report = read_columns(path).load_report
    assert report["duplicates_merged"] == 3 and report["assets_kept_apart"] == 1


def test_prowlers_csv_examples_concatenated_load_alike(tmp_path: Path) -> None:
    path = tmp_path / "examples.csv"
    path.write_text("".join((DATA / "prowler-examples" / f"example_output_{p}.csv").read_text()
                            for p in ("aws", "azure", "gcp", "kubernetes")))
    _assert_same_load(path)
    assert read_columns(path).load_report["finding_ids_renamed"]  # (what this is about)


def test_a_rescan_of_the_same_findings_merges_alike(tmp_path: Path) -> None:
    later = [_with({"TIMESTAMP": "2024-12-08 09:30:00.000000"}, row) for row in ROWS]
    older_again = _with({"TIMESTAMP": "", "ACCOUNT_UID": ""}, ROWS[1])
    path = _csv(tmp_path, [*ROWS, *later, ROWS[0], older_again])
    _assert_same_load(path)
    assert read_columns(path).load_report["warnings"]  # (the case this test is about)


def test_kubernetes_rows_name_their_cluster_alike(tmp_path: Path) -> None:
    pod = _row("core_minimize_root_containers_admission", "FAIL", "high", "", "web-7f9c", "Pod")
    rows = [_with({"PROVIDER": "kubernetes", "ACCOUNT_UID": "", "ACCOUNT_NAME": "kind-shop"},
                  pod),
            _with({"PROVIDER": "kubernetes", "ACCOUNT_UID": ""}, ROWS[1])]
    _assert_same_load(_csv(tmp_path, rows))


def test_a_resource_named_like_an_account_asset_loads_alike(tmp_path: Path) -> None:
    rows = [_with({"RESOURCE_UID": "account:123456789012", "FINDING_UID": "f-1"}), *ROWS]
    _assert_same_load(_csv(tmp_path, rows))


def test_exposure_read_from_titles_and_ipv6_details_loads_alike(tmp_path: Path) -> None:
    rows = [_with({"CHECK_ID": "", "CHECK_TITLE": "Port 3389 open from the internet",
                   "FINDING_UID": "f-title"}),
            _with({"STATUS_EXTENDED": "sg-1 allows ::/0 on port 22", "FINDING_UID": "f-v6"}),
            _with({"CHECK_TITLE": "", "FINDING_UID": "f-untitled",
                   "CATEGORIES": "internet-exposed, encryption"}),
            _with({"CHECK_ID": "", "CHECK_TITLE": "", "FINDING_UID": "f-bare"})]
    _assert_same_load(_csv(tmp_path, rows))


def test_assets_named_from_their_uid_or_name_load_alike(tmp_path: Path) -> None:
    named = [("arn:aws:ec2:eu-west-1:1:instance/i-9", ""), ("projects/p/zones/z/", ""),
             ("", "only-a-name"), ("x/", "  "), ("plain", "own name")]
    rows = [_with({"RESOURCE_UID": uid, "RESOURCE_NAME": name, "FINDING_UID": f"f-{i}",
                   "RESOURCE_TAGS": "" if i % 2 else "team=web | env:prod",
                   "SERVICE_NAME": "" if i == 3 else "ec2", "REGION": "" if i == 4 else "x",
                   "RESOURCE_TYPE": "" if i == 2 else "AwsEc2Instance"})
            for i, (uid, name) in enumerate(named)]
    _assert_same_load(_csv(tmp_path, rows))


def test_a_file_without_optional_columns_loads_alike(tmp_path: Path) -> None:
    path = tmp_path / "minimal.csv"
    path.write_text("FINDING_UID;CHECK_ID;STATUS;RESOURCE_UID\n"
                    "f-1;s3_bucket_public_access;FAIL;arn:aws:s3:::open\n"
                    "f-2;iam_root_mfa_enabled;PASS;root\n"
                    "f-3;ec2_instance_public_ip;FAIL;i-1\n")
    _assert_same_load(path)


def test_short_extra_quoted_and_header_only_files_load_alike(tmp_path: Path) -> None:
    quoted = ROWS[0].split(";")
    quoted[COLUMNS.index("STATUS_EXTENDED")] = '"port 22; open\nto 0.0.0.0/0"'
    rows = [ROWS[0] + ";stray;cells", ";".join(quoted), ROWS[1][:40], ROWS[2]]
    _assert_same_load(_csv(tmp_path, rows))
    _assert_same_load(_csv(tmp_path, [], name="empty.csv"))


def test_strict_mode_fails_on_the_same_row_with_the_same_error(tmp_path: Path) -> None:
    path = _csv(tmp_path, [ROWS[0], _BAD_ROWS["unknown_status"][0], ROWS[2]])
    with pytest.raises(DatasetLoadError) as by_row:
        read_prowler_csv_by_row(path, strict=True)
    with pytest.raises(DatasetLoadError) as by_column:
        read_columns(path, strict=True)
    assert (by_column.value.problem, by_column.value.data) == (
        by_row.value.problem, by_row.value.data)


def test_a_generated_scan_loads_alike(tmp_path: Path) -> None:
    bench = _bench_generator()
    _, path, _, records = bench.generate(tmp_path, 0.4)  # type: ignore[attr-defined]
    assert records > 300
    _assert_same_load(path)


def test_a_file_pandas_refuses_is_read_row_by_row(tmp_path: Path) -> None:
    path = _csv(tmp_path, [ROWS[0], _with({"STATUS_EXTENDED": '"never closed'}, ROWS[1])])
    assert read_columns(path) is None
    ds = read_prowler_csv(path)
    assert ds.findings["resource_id"].tolist() == [SG]


@pytest.mark.parametrize("fixture", sorted(p.name for p in DATA.rglob("*.csv")))
def test_every_csv_fixture_is_read_or_refused_alike(fixture: str) -> None:
    path = next(DATA.rglob(fixture))
    try:
        expected = read_prowler_csv_by_row(path)
    except DatasetLoadError as refused:
        with pytest.raises(DatasetLoadError) as err:
            read_prowler_csv(path)
        assert err.value.problem == refused.problem
        return
    _assert_same_load(path)
    assert len(expected.assets)


def test_bytes_that_are_not_utf8_are_refused_alike(tmp_path: Path) -> None:
    path = _csv(tmp_path, ROWS)
    path.write_bytes(path.read_bytes().replace(b"sg-0123", b"sg-\xff\xfe"))
    with pytest.raises(DatasetLoadError) as by_row:
        read_prowler_csv_by_row(path)
    with pytest.raises(DatasetLoadError) as by_column:
        read_prowler_csv(path)
    assert by_column.value.problem == by_row.value.problem


def test_bytes_that_are_not_utf8_in_a_column_not_read_are_refused_alike(tmp_path: Path
                                                                         ) -> None:
    path = _csv(tmp_path, [_with({"NOTES": "note"}, row) for row in ROWS])
    path.write_bytes(path.read_bytes().replace(b"note", b"n\xffte", 1))
    with pytest.raises(DatasetLoadError) as by_row:
        read_prowler_csv_by_row(path)
    with pytest.raises(DatasetLoadError) as by_column:
        read_prowler_csv(path)
    assert by_column.value.problem == by_row.value.problem


def test_text_past_the_first_megabyte_loads_alike(tmp_path: Path) -> None:
    detail = "é" * 700_000  # (two bytes each: a character split across read chunks)
    rows = [_with({"STATUS_EXTENDED": detail, "NOTES": detail, "FINDING_UID": f"f-{i}"})
            for i in range(2)]
    _assert_same_load(_csv(tmp_path, rows))


def test_the_padding_check_knows_every_character_python_strips() -> None:
    every = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
    assert every == PYTHON_SPACES


_HEADER = ";".join(COLUMNS)
_SHAPES = {
    "crlf": "\r\n".join([_HEADER, *ROWS]) + "\r\n",
    "bom": "\ufeff" + "\n".join([_HEADER, *ROWS]) + "\n",
    "lower_case_header": "\n".join([_HEADER.lower(), *ROWS]) + "\n",
    "padded_header": "\n".join([";".join(f" {c} " for c in COLUMNS), *ROWS]) + "\n",
    "repeated_column": "\n".join([_HEADER.replace("SEVERITY", "STATUS"), *ROWS]) + "\n",
    "blank_lines": "\n".join([_HEADER, ROWS[0], "", "   ", ROWS[1]]) + "\n",
    "no_final_newline": "\n".join([_HEADER, *ROWS]),
}


@pytest.mark.parametrize("shape", sorted(_SHAPES))
def test_file_shapes_load_alike(tmp_path: Path, shape: str) -> None:
    path = tmp_path / f"{shape}.csv"
    path.write_bytes(_SHAPES[shape].encode())
    _assert_same_load(path)


def test_arns_from_either_resource_column_padded_or_not_load_alike(tmp_path: Path) -> None:
    named = [("", "arn:aws:s3:::only-named"), ("  arn:aws:s3:::padded ", "p"),
             ("", " arn:aws:s3:::padded-name"), ("ARN:aws:s3:::upper", "u"), ("", "arnless")]
    rows = [_with({"RESOURCE_UID": uid, "RESOURCE_NAME": name, "FINDING_UID": f"f-{i}"})
            for i, (uid, name) in enumerate(named)]
    _assert_same_load(_csv(tmp_path, rows))


def test_details_naming_both_ipv4_and_ipv6_internet_load_alike(tmp_path: Path) -> None:
    details = ["sg-1 allows 0.0.0.0/0 and ::/0 on port 22", "sg-2 allows ::/0 on port 22",
               " sg-3 allows ::/0 on port 3389 ", "sg-4 allows 10.0.0.0/8"]
    rows = [_with({"STATUS_EXTENDED": d, "FINDING_UID": f"f-{i}"}) for i, d in enumerate(details)]
    _assert_same_load(_csv(tmp_path, rows))


@pytest.mark.parametrize("enabled", [True, False])
def test_a_load_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path,
                                                             enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert read_columns(_csv(tmp_path, ROWS)) is not None
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_overlapping_loads_turn_the_garbage_collector_back_on_after_the_last(
        tmp_path: Path) -> None:
    path = _csv(tmp_path, ROWS)
    inside, release = threading.Event(), threading.Event()
    pause = prowler_csv_columns._collector_paused

    def held_load() -> None:
        with pause():
            inside.set()
            release.wait(10)
            read_columns(path)

    assert gc.isenabled()
    worker = threading.Thread(target=held_load)
    worker.start()
    try:
        assert inside.wait(10)
        read_columns(path)
        assert not gc.isenabled()  # the other load is still building
    finally:
        release.set()
        worker.join(10)
    assert gc.isenabled()


def test_names_padded_with_any_character_python_strips_load_alike(tmp_path: Path) -> None:
    pads = [c for c in PYTHON_SPACES if c not in "\r\n"]  # (a raw line break ends the row)
    rows = [_with({"RESOURCE_NAME": f"{c}name-{i}" if i % 2 else f"name-{i}{c}",
                   "FINDING_UID": f"f-{i}"}) for i, c in enumerate(pads)]
    rows.append(_with({"RESOURCE_NAME": "zero\u200b", "FINDING_UID": "f-not-a-space"}))
    _assert_same_load(_csv(tmp_path, rows))


def test_each_asset_holds_its_own_tags_and_metadata(tmp_path: Path) -> None:
    rows = [_with({"RESOURCE_UID": f"arn:aws:s3:::b{i}", "RESOURCE_NAME": f"b{i}",
                   "RESOURCE_TAGS": "team=web", "FINDING_UID": f"f-{i}"}) for i in range(3)]
    ds = read_columns(_csv(tmp_path, rows))
    assert ds is not None
    assets = ds.assets.set_index("id")
    first, second = assets.loc["arn:aws:s3:::b0"], assets.loc["arn:aws:s3:::b1"]
    first["tags"]["team"] = "edited"
    first["metadata"]["service"] = "edited"
    assert second["tags"] == {"team": "web"}
    assert second["metadata"]["service"] != "edited"
