"""Plan-time tuning from Python: ``Plan(..., tune="quick")`` is a plan like any other whose
transforms match numpy.fft, whose choice and report are readable, whose trials reach the
logger "nbfft.tune", whose wisdom file answers the next plan, and whose bad settings fail on
every rank (an unwritable wisdom path before any trial)."""

import logging
import os
import re

import numpy as np
import pytest

import nbfft
from conftest import all_ranks, assert_close_everywhere, global_field, raises_everywhere

SHAPE = (9, 10, 12)  # (nz, ny, nx)


class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.records = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def tune_log():
    """The records the logger "nbfft.tune" receives while the test runs."""
    logger = logging.getLogger("nbfft.tune")
    handler = Records()
    old = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)
    logger.setLevel(old)


@pytest.fixture
def wisdom_path(comm):
    """One fresh file name on every rank (rank 0's pid), removed afterwards."""
    path = comm.bcast("/tmp/nbfft-pytest-tune-{}.txt".format(os.getpid()) if comm.rank == 0 else None)
    yield path
    comm.Barrier()
    if comm.rank == 0 and os.path.exists(path):
        os.remove(path)


def test_tuned_plan_matches_numpy_and_logs_each_trial(comm, tune_log, wisdom_path):
    g = global_field(SHAPE, np.float64)
    with nbfft.Plan(comm, SHAPE, effort="estimate", tune="quick", tune_budget=30, tune_wisdom=wisdom_path) as plan:
        u = plan.scatter(g if comm.rank == 0 else None)
        U = plan.forward(u)
        want = np.fft.rfftn(g).transpose(plan.output_box.perm)[plan.output_box.slices]
        assert_close_everywhere(U, want, np.float64)
        assert_close_everywhere(plan.backward(U), g[plan.input_box.slices], np.float64)

        o = plan.options
        assert o.tune == "quick" and o.tune_budget == 30.0 and o.tune_wisdom == wisdom_path
        assert o.m1 * o.m2 == comm.size
        r = plan.tune_report
        assert isinstance(r, nbfft.TuneReport)
        assert not r.from_wisdom and r.trials and r.best_seconds > 0
        assert r.chosen["proc_grid"] == o.proc_grid and r.chosen["col_transport"] == o.col_transport
        assert "chosen:" in str(r)

    kinds = [rec.tune["kind"] for rec in tune_log]
    trials = [rec.tune for rec in tune_log if rec.tune["kind"] == "trial"]
    assert kinds[0] == "start" and kinds[-1] == "done", kinds
    assert len(trials) >= 2
    assert [t["trial"] for t in trials] == list(range(1, len(trials) + 1))
    for t in trials:
        assert t["options"].startswith("proc_grid=") and "col_transport=" in t["options"]
        assert t["eta"] >= 0 and t["budget"] == 30.0 and t["planned"] >= t["trial"]
    timed = [t for t in trials if t["seconds"] >= 0]
    assert timed and all("ETA" in t["line"] for t in trials)
    assert all(rec.levelno == logging.INFO and rec.name == "nbfft.tune" for rec in tune_log)
    if comm.rank == 0:
        with open(wisdom_path) as f:
            assert f.readline().strip() == "nbfft-tune 1"

    # The file is read back: rank 0 rewrites the entry's COL transport, and the same key
    # again is answered from the file, no trials, with the edited choice.
    if comm.rank == 0:
        with open(wisdom_path) as f:
            text = f.read()
        with open(wisdom_path, "w") as f:
            f.write(re.sub(r"col_transport=[^;]*;", "col_transport=linear@caller;", text))
    comm.Barrier()
    del tune_log[:]
    with nbfft.Plan(comm, SHAPE, effort="estimate", tune="quick", tune_budget=30, tune_wisdom=wisdom_path) as again:
        r2 = again.tune_report
        assert r2.from_wisdom and not r2.trials
        assert r2.chosen["col_transport"] == "linear@caller" == again.options.col_transport
        assert r2.chosen["proc_grid"] == r.chosen["proc_grid"]
    assert [rec.tune["kind"] for rec in tune_log] == ["done"]
    assert tune_log[0].tune["from_wisdom"]


def test_nd_plan_tunes_into_the_same_wisdom_file(comm, wisdom_path):
    """NdPlan(tune_wisdom=...): the choice goes to the file under a key of its own ("nd shape=..."),
    and the next plan of that key reads it from there (the file before this process's memory)."""
    with nbfft.NdPlan(comm, (12, 10), tune="quick", tune_budget=30, tune_wisdom=wisdom_path) as p:
        assert p.options.tune_wisdom == wisdom_path
        first = p.tune_report
        grid = p.options.proc_grid
    assert all_ranks(not first.startswith("nd tune: from")), first
    if comm.rank == 0:
        with open(wisdom_path) as f:
            text = f.read()
        assert text.startswith("nbfft-tune 1\n") and "\nnd shape=12x10 " in text, text
    with nbfft.NdPlan(comm, (12, 10), tune="quick", tune_budget=30, tune_wisdom=wisdom_path) as p:
        assert all_ranks(p.tune_report.startswith("nd tune: from the wisdom file")), p.tune_report
        assert p.options.proc_grid == grid


def test_nd_plan_logs_each_trial(comm, tune_log):
    """NdPlan's tuner reaches the logger "nbfft.tune" as Plan's does: start, every trial naming
    its candidate (grid, transport, fields in flight), the choice."""
    with nbfft.NdPlan(comm, (14, 10), tune="quick", tune_budget=30, tune_log=0) as p:
        grid = "x".join(str(g) for g in p.grid)
        assert p.options.tune_log == 0
    kinds = [rec.tune["kind"] for rec in tune_log]
    assert kinds[0] == "start" and kinds[-1] == "done" and "trial" in kinds, kinds
    assert "search of nd 14x10 axes (0, 1)" in tune_log[0].tune["line"]
    trials = [rec.tune for rec in tune_log if rec.tune["kind"] == "trial"]
    assert all(t["options"].startswith("grid=") and "transport=" in t["options"] for t in trials)
    assert tune_log[-1].tune["options"].startswith("grid=" + grid + " ")
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(comm, (14, 10), tune="quick", tune_log=3))
    assert "tune_log" in e.message


def test_untuned_plan_has_no_report_and_logs_nothing(comm, tune_log):
    with nbfft.Plan(comm, SHAPE, effort="estimate") as plan:
        assert plan.tune_report is None
        assert plan.options.tune == "none"
    assert tune_log == []


def test_tuning_rows_are_marked_and_not_searched():
    rows = {r["key"]: r for r in nbfft.option_rows()}
    for key in ("tune", "tune_budget", "tune_fields", "tune_wisdom", "tune_log"):
        assert rows[key]["tuning"] and not rows[key]["tuned"], key
    assert rows["tune"]["default"] == "none"
    assert rows["tune_budget"]["type"] == "real" and rows["tune_wisdom"]["type"] == "text"


def test_bad_tuning_settings_fail_on_every_rank(comm, tune_log):
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, SHAPE, tune="fast"))
    assert "tune" in e.message and "'fast'" in e.message and "quick" in e.message
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, SHAPE, tune="quick", tune_budget=-1))
    assert "tune_budget" in e.message and "-1" in e.message
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.Plan(comm, SHAPE, tune="quick", tune_budget="5"))
    assert "tune_budget" in e.message
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, SHAPE, tune="quick", tune_log=5))
    assert "tune_log" in e.message
    # An unwritable wisdom path is found before the first trial.
    path = "/nonexistent-nbfft-dir/tune.txt"
    e = raises_everywhere(nbfft.IoError, lambda: nbfft.Plan(comm, SHAPE, effort="estimate", tune="quick",
                                                               tune_budget=5, tune_wisdom=path))
    assert path in e.message
    assert all_ranks(not any(rec.tune["kind"] == "trial" for rec in tune_log))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the handler's, on purpose
def test_a_failing_log_handler_does_not_break_tuning(comm):
    """A handler that raises on one rank must not leave that rank out of the collective search."""
    logger = logging.getLogger("nbfft.tune")

    class Broken(logging.Handler):
        def emit(self, record):
            raise RuntimeError("broken handler")

        def handleError(self, record):  # logging's default prints; make it raise instead
            raise RuntimeError("broken handler")

    handler = Broken()
    old = logger.level
    logger.setLevel(logging.INFO)
    if comm.rank == 0:
        logger.addHandler(handler)
    try:
        with nbfft.Plan(comm, SHAPE, effort="estimate", tune="quick", tune_budget=2, tune_fields=2) as plan:
            assert plan.tune_report is not None
            assert plan.options.tune_fields == 2
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
