"""Python's face of nbfft's one option table: Plan takes every key of the table that applies
to the 3-D plan, and NdPlan every key that applies to N-D plans (as a named parameter or a
keyword argument of the same name), ``plan.options`` has every 3-D key, and a key of the
other kind of plan is refused naming it. A new row of the table that Python spelled
differently, or lost, fails here."""

import inspect

import numpy as np
import pytest

import nbfft
from conftest import all_ranks, raises_everywhere

SHAPE = (6, 8, 10)
ROWS = {r["key"]: r for r in nbfft.option_rows()}
ROWS_3D = {k: r for k, r in ROWS.items() if r["scope"] != "N-D"}
ROWS_ND = {k: r for k, r in ROWS.items() if r["scope"] != "3-D"}


def test_every_row_is_described():
    assert nbfft.option_keys() == list(ROWS)
    assert len(ROWS) >= 16
    for r in ROWS.values():
        assert r["doc"] and r["allowed"] and r["type"] in ("choice", "int", "bool", "grid", "transport", "real", "text",
                                                           "ratios")
        assert r["example"] != r["default"], r["key"]
        assert r["scope"] in ("all", "3-D", "N-D"), r["key"]
        assert (r["nd_default"] is None) == (r["scope"] == "3-D"), r["key"]
    # One default for a key both plans have, but the two documented (docs/fft.md "Defaults").
    differ = {k for k, r in ROWS.items() if r["scope"] == "all" and r["default"] != r["nd_default"]}
    assert differ == {"output_order", "kinds"}, differ


def test_plan_accepts_every_key_by_its_name():
    params = inspect.signature(nbfft.Plan.__init__).parameters
    assert any(p.kind == p.VAR_KEYWORD for p in params.values())
    named = [k for k in nbfft.option_keys() if k in params]
    assert set(named) == {"transform", "transport", "row_transport", "col_transport", "norm"}


@pytest.mark.parametrize("key", list(ROWS_3D))
def test_each_key_reaches_the_plan(comm, key):
    """Plan(..., key=example) makes a plan whose options read the example back under the key."""
    value = ROWS[key]["example"]
    kwargs = {"effort": "estimate", key: value}
    dtype = np.float64
    if key == "precision":
        dtype = np.float32  # the dtype says it too, and the two must match
    if key == "proc_grid":
        value = "1x{}".format(comm.size)  # the example's 2x3 needs 6 ranks
        kwargs[key] = value
    if key == "backend":
        from test_backends import built  # the example's mix needs both backends
        value = ROWS[key]["example"] if len(built()) > 1 else built()[0]
        kwargs[key] = value
    with nbfft.Plan(comm, SHAPE, dtype, **kwargs) as plan:
        o = plan.options
        assert set(ROWS_3D) <= set(o.as_dict()), "plan.options lacks a key of the table"
        assert getattr(o, key) == value, (key, getattr(o, key), value)
        assert "precision=" in str(o)


def test_options_hold_every_row_with_python_types(comm):
    with nbfft.Plan(comm, SHAPE, effort="estimate", lean_workspace=True, fields_in_flight=2) as plan:
        o = plan.options
        rows = {r["key"]: r for r in nbfft.option_rows()}
        for key, value in o.as_dict().items():
            kind = rows[key]["type"]
            want = {"int": int, "bool": bool, "real": float}.get(kind, str)
            assert type(value) is want, (key, value)
        assert o.lean_workspace is True and o.fields_in_flight == 2 and o.pipeline_row is False
        assert o.m1 * o.m2 == comm.size


# NdPlan's named parameters (numpy-style: grid and kinds as sequences, dtype for transform and
# precision); every other key of N-D plans is a keyword argument of its name.
ND_NAMED = {"norm": "ortho", "proc_grid": None, "kinds": None, "batch_axis": None, "transform": None,
            "precision": None}


@pytest.mark.parametrize("key", [k for k in ROWS_ND if k not in ND_NAMED])
def test_each_nd_key_reaches_the_nd_plan(comm, key):
    """NdPlan(..., key=example) makes a plan whose options text reads the example back."""
    value = ROWS[key]["example"]
    if key == "tune":
        value = "quick"
    if key == "tune_fields":
        value = 3
    if key == "padding":
        value = "1.5,2"  # one ratio per listed axis of the 2-D array
    if key == "backend":
        from test_backends import built  # one library for every stage: the 3-D example's mix is refused
        value = built()[-1]
    kwargs = {"effort": "estimate", "tune_budget": 30, key: value}
    with nbfft.NdPlan(comm, (6, 8), **kwargs) as plan:
        o = plan.options
        assert set(ROWS_ND) == set(o.as_dict()), "plan.options lacks a key of the table"
        got = getattr(o, key)
        if key == "transport":
            value = "pairwise:2@caller"  # the example, as the table prints it
        if key not in ("tune",):  # the tuner's own rows print as asked; its choice is the plan's
            assert str(got) == str(value) or got == value, (key, got, value)
        assert str(o).startswith("precision=")


def test_nd_plan_refuses_a_3d_key_naming_it(comm):
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(comm, (6, 8), pipeline_row=True))
    assert "pipeline_row" in e.message and "3-D" in e.message
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.NdPlan(comm, (6, 8), transform="c2c"))
    assert "transform" in e.message and "dtype" in e.message
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.NdPlan(comm, (6, 8), fields_in_flight=65))
    assert "fields_in_flight" in e.message and "64" in e.message


def test_plan_refuses_an_nd_key_naming_it(comm):
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.Plan(comm, SHAPE, batch_axis=0))
    assert "batch_axis" in e.message and "N-D" in e.message


def test_unknown_keyword_names_the_options(comm):
    e = raises_everywhere(nbfft.ArgumentTypeError, lambda: nbfft.Plan(comm, SHAPE, fields_inflight=2))
    assert "fields_inflight" in e.message and "fields_in_flight" in e.message


def test_bad_value_names_key_value_and_range(comm):
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, SHAPE, fields_in_flight=65))
    assert "fields_in_flight" in e.message and "65" in e.message and "64" in e.message
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, SHAPE, effort="hard"))
    assert "effort" in e.message and "'hard'" in e.message and "patient" in e.message


def test_precision_and_proc_grid_must_match_dtype_and_grid(comm):
    with nbfft.Plan(comm, SHAPE, np.float32, precision="single", effort="estimate") as plan:
        assert plan.options.precision == "single"
    e = raises_everywhere(nbfft.InvalidArgument, lambda: nbfft.Plan(comm, SHAPE, np.float32, precision="double"))
    assert "precision" in e.message and "dtype" in e.message


def test_defaults_are_the_tables(comm):
    with nbfft.Plan(comm, SHAPE) as plan:
        o = plan.options.as_dict()
    for r in ROWS_3D.values():
        if r["key"] not in ("proc_grid", "threads", "backend"):  # the plan resolves auto and 0 (the environment's)
            assert all_ranks(o[r["key"]] == r["default"]), (r["key"], o[r["key"]], r["default"])
    assert all_ranks(o["threads"] >= 1)
    assert all_ranks(o["backend"] in ("fftw", "mkl"))  # auto names the backend that ran
    with nbfft.NdPlan(comm, (6, 8)) as nd:
        o = nd.options.as_dict()
    for r in ROWS_ND.values():
        if r["key"] not in ("proc_grid", "backend", "threads"):  # the grid as made, the backend and threads that run
            assert all_ranks(o[r["key"]] == r["nd_default"]), (r["key"], o[r["key"]], r["nd_default"])


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_two_threads_give_the_one_thread_bytes(comm, dtype):
    """threads=2 (docs/fft.md "Threads inside each rank") transforms bitwise as threads=1:
    forward and backward, each round trip run twice, as the second finds the worker lane awake."""
    shape = (48, 60, 64)  # planes big enough that both lanes take some
    got = []
    for threads in (1, 2):
        with nbfft.Plan(comm, shape, dtype=dtype, effort="estimate", threads=threads) as plan:
            assert plan.options.threads == threads
            rng = np.random.default_rng(7 + comm.rank)
            u = plan.empty_input()
            u[...] = rng.standard_normal(u.shape)
            if np.dtype(dtype).kind == "c":
                u += 1j * rng.standard_normal(u.shape)
            for _ in range(2):
                U = plan.forward(u)
                v = plan.backward(U)
            got.append((U, v))
    assert all_ranks(np.array_equal(got[0][0], got[1][0])), "the 2-thread spectrum differs from the 1-thread one"
    assert all_ranks(np.array_equal(got[0][1], got[1][1])), "the 2-thread round trip differs from the 1-thread one"
