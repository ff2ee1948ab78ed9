"""Progress reporting: first index builds report 0/1 then 1/1; long queries report a strictly
increasing sequence from start to end; a failing callback never breaks a query."""

from __future__ import annotations

from cloudg_nb.estate import Phases, attack_paths, demo, graph_stats, internet_exposure


def test_first_graph_index_build_reports_zero_then_one() -> None:
    ds = demo()
    seen: list[tuple[float, float | None]] = []
    ds.graph(lambda p, total, msg: seen.append((p, total)))
    assert seen == [(0, 1), (1, 1)]
    seen.clear()
    ds.graph(lambda p, total, msg: seen.append((p, total)))
    assert seen == []


def test_first_view_build_reports_zero_then_one(ds) -> None:
    ds.graph()
    seen: list[float] = []
    ds.view("flow", lambda p, total, msg: seen.append(p / total))
    assert seen == [0, 1]


def test_queries_report_start_phases_and_end_strictly_increasing() -> None:
    for query in (lambda d, cb: attack_paths(d, "customers-db", progress=cb),
                  lambda d, cb: internet_exposure(d, progress=cb),
                  lambda d, cb: graph_stats(d, progress=cb)):
        seen: list[float] = []
        query(demo(), lambda p, total, msg, seen=seen: seen.append(p))
        assert seen[0] == 0 and seen[-1] == 100 and len(seen) >= 3
        assert seen == sorted(set(seen))


def test_a_failing_progress_callback_does_not_break_the_query(ds) -> None:
    def broken(p, total, msg):
        raise RuntimeError("client went away")

    assert attack_paths(ds, "customers-db", progress=broken)["count"] > 0


def test_phases_drop_values_that_do_not_increase() -> None:
    seen: list[float] = []
    ph = Phases(lambda p, t, m: seen.append(p))
    ph.step(10, "a")
    ph.step(5, "b")
    sub = ph.sub(20, 40)
    sub(0, 1, "nested start")
    sub(1, 1, "nested end")
    ph.done()
    assert seen == [10, 20, 40, 100]
