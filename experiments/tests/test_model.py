"""Unit tests of the scaling model (experiments/nbfft_experiments/model.py) and its CLI:
the fit recovers known constants from synthetic runs, predictions move the way they must,
bad input gets a ModelError (exit 2 from the CLI) that names the problem."""
import json
import math

import numpy as np
import pytest

from nbfft_experiments import model as M
from nbfft_experiments import model_cli as C

TRUE_RATES = {"fft_x": 0.9e-9, "fft_y": 1.3e-9, "fft_z": 1.6e-9, "pack": 0.25e-9, "unpack": 0.35e-9}
TRUE_NET = M.Network(alpha_intra=3e-6, beta_intra=0.3e-9, alpha_inter=60e-6, beta_inter=8.5e-9)


def _true_model():
    return M.Model(dict(TRUE_RATES), M.Network(**vars(TRUE_NET)), theta=0.7)


def _layouts():
    """What `measure` runs: local 1-4 ranks (slabs and pencils) and 2-host clusters."""
    out = []
    for g in (64, 96, 128):
        n = (g, g, g)
        for m1, m2 in ((1, 1), (1, 2), (2, 1), (1, 3), (1, 4), (2, 2)):
            out.append(M.Layout(n, m1, m2, m1 * m2, oversub=max(1.0, m1 * m2 / 2)))
        out.append(M.Layout(n, 1, 2, 1))             # 2 hosts x 1 rank
        out.append(M.Layout(n, 1, 4, 2, oversub=2))  # 2 hosts x 2 ranks, slabs
        out.append(M.Layout(n, 2, 2, 2, oversub=2))  # 2 hosts x 2 ranks, ROW on the host
    return out


def _observations(model, noise=0.0, seed=1):
    rng = np.random.default_rng(seed)
    obs = []
    for lay in _layouts():
        ph = M.predict_phases(model, lay)
        ph = {k: v * (1 + noise * rng.standard_normal()) for k, v in ph.items()}
        crosses = any(M.exchange_features(lay, e)[2] > 0 for e in M.EXCHANGES)
        obs.append(M.Observation(lay, ph, sum(ph.values()), network="1gbit" if crosses else ""))
    return obs


def test_fit_recovers_known_constants_exactly():
    m = M.fit(_observations(_true_model()))
    for p, v in TRUE_RATES.items():
        assert m.rates[p] == pytest.approx(v, rel=1e-6), p
    for k in ("alpha_intra", "beta_intra", "alpha_inter", "beta_inter"):
        assert getattr(m.network, k) == pytest.approx(getattr(TRUE_NET, k), rel=1e-4), k
    assert m.theta == pytest.approx(0.7, rel=1e-6)
    assert m.fit_report["total"]["r2"] == pytest.approx(1.0, abs=1e-9)
    assert m.fit_report["network"]["inter"]["max_abs_rel"] < 1e-6


def test_fit_recovers_constants_under_noise():
    m = M.fit(_observations(_true_model(), noise=0.03))
    for p, v in TRUE_RATES.items():
        assert m.rates[p] == pytest.approx(v, rel=0.05), p
    assert m.network.beta_intra == pytest.approx(TRUE_NET.beta_intra, rel=0.15)
    assert m.network.beta_inter == pytest.approx(TRUE_NET.beta_inter, rel=0.15)
    assert 0.9 < m.fit_report["phases"]["fft_y"]["r2"] <= 1.0


def test_fit_without_cluster_runs_leaves_network_open():
    obs = [o for o in _observations(_true_model()) if not o.network]
    m = M.fit(obs)
    assert m.network.alpha_inter is None
    with pytest.raises(M.ModelError, match="inter-node"):
        M.predict(m, M.Layout((64,) * 3, 1, 4, 2))
    m2 = M.with_network(m, "alpha=1.5us,bw=100gbit,ranks-per-node=2")
    assert m2.network.beta_inter == pytest.approx(8 / 100e9)
    assert M.predict(m2, M.Layout((64,) * 3, 1, 4, 2)).blocking_s > 0


def test_gap_closed_is_the_median_and_shapes_the_expected_time():
    m = M.fit(_observations(_true_model()), pipelines=[0.1, 0.5, 0.4])
    assert m.gap_closed == pytest.approx(0.4)
    p = M.predict(m, M.Layout((128,) * 3, 1, 4, 1, fields=4))
    assert p.bound_s <= p.expected_s <= p.blocking_s
    assert p.expected_s == pytest.approx(p.blocking_s - 0.4 * (p.blocking_s - p.bound_s))


def test_pipeline_bound_is_between_the_parts_and_blocking():
    m = _true_model()
    for lay in _layouts():
        lay = M.Layout(lay.n, lay.m1, lay.m2, lay.ranks_per_node, fields=4)
        p = M.predict(m, lay)
        comm = p.phases["col"]
        comp = p.blocking_s - comm
        assert max(comp, comm) <= p.bound_s * (1 + 1e-12)
        assert p.bound_s <= p.blocking_s * (1 + 1e-12)


def test_predictions_are_monotone():
    m = M.with_network(_true_model(), "alpha=1.5us,bw=100gbit,ranks-per-node=64")
    # more points on the same ranks: more time and memory
    prev = None
    for g in (1024, 2048, 4096, 8192):
        b = M.best(m, (g,) * 3, 1024, 64, fields=4)
        if prev:
            assert b.blocking_s > prev.blocking_s and b.data_bytes > prev.data_bytes
        prev = b
    # more ranks on the same grid: less memory per rank, less compute
    prev = None
    for p in (64, 256, 1024, 4096, 16384):
        b = M.best(m, (8192,) * 3, p, 64, fields=4)
        c = sum(b.phases[k] for k in M.COMPUTE_PHASES)
        if prev:
            assert b.data_bytes < prev[0].data_bytes and c < prev[1]
        prev = (b, c)
    # a slower network never makes the transform faster
    lay = M.Layout((1024,) * 3, 16, 64, 64)
    times = [M.predict(M.with_network(m, f"bw={bw}gbit"), lay).blocking_s for bw in (400, 100, 25, 1)]
    assert times == sorted(times) and times[0] < times[-1]


def test_slabs_only_while_they_fit_pencils_beyond():
    m = M.with_network(_true_model(), "alpha=1.5us,bw=100gbit,ranks-per-node=64")
    assert M.best(m, (8192,) * 3, 16384, 64, slabs=True) is None
    pen = M.best(m, (8192,) * 3, 16384, 64, slabs=False)
    assert pen.layout.m1 > 1 and pen.layout.ranks == 16384
    assert M.best(m, (1024,) * 3, 1024, 64, slabs=True).layout.m1 == 1
    assert (1, 2048) not in M.proc_grids((1024,) * 3, 2048)
    assert M.best(m, (4,) * 3, 1000, 64) is None  # no factorization fits
    rows = C.predict_table(m, [(8192,) * 3, (1024,) * 3], [64, 16384], 64, 4)
    assert all(r["fits"] for r in rows)
    assert rows[1]["slab_s"] is None and rows[0]["slab_s"] is not None


def test_sizes_and_peers():
    s = M.sizes(M.Layout((128,) * 3, 1, 2, 2))
    assert s["data_bytes"] == 16 * 65 * 64 * 128  # the Z pencil, complex, of the slowest rank
    assert s["col_block"] == 16 * 65 * 128 * 64 / 2
    assert M.peers(1, 1, 4) == (0, 0)
    assert M.peers(8, 1, 4) == (3, 4)     # ROW of 8 consecutive ranks, 4 per node
    assert M.peers(8, 4, 4) == (0, 7)     # COL with stride 4: every peer elsewhere
    assert M.peers(8, 2, 4) == (1, 6)
    uneven = M.sizes(M.Layout((65, 33, 17), 3, 5, 15))
    assert uneven["fft_z"] > 0 and uneven["data_bytes"] > 0


def test_nnls_keeps_coefficients_non_negative():
    A = np.array([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])
    b = np.array([3.0, 2.0, 1.0])  # unconstrained slope is negative
    x = M.nnls(A, b)
    assert (x >= 0).all() and x[1] == 0 and x[0] == pytest.approx(2.0)
    assert M.nnls(A, A @ [0.5, 2.0]) == pytest.approx([0.5, 2.0])


@pytest.mark.parametrize("call, what", [
    (lambda: M.parse_time("2 parsecs"), "unknown time unit"),
    (lambda: M.parse_beta("3GB"), "seconds per byte"),
    (lambda: M.parse_bandwidth("fast"), "bw: expected"),
    (lambda: M.parse_bandwidth("10furlongs"), "bandwidth"),
    (lambda: M.parse_grid("12x"), "grid"),
    (lambda: M.parse_grid("1"), "grid"),
    (lambda: M.parse_proc_grid("2by2"), "process grid"),
    (lambda: M.with_network(_true_model(), "latency=2us"), "unknown key 'latency'"),
    (lambda: M.with_network(_true_model(), "ranks-per-node=0"), "ranks-per-node"),
    (lambda: M.Layout((64,) * 3, 0, 4, 1).check(), "process grid"),
    (lambda: M.Layout((64,) * 3, 1, 4, 1, oversub=0.5).check(), "oversubscription"),
    (lambda: M.fit([]), "no blocking runs"),
    (lambda: M.fit([o for o in _observations(_true_model()) if o.layout.ranks == 1]), "within one node"),
    (lambda: M.Model.from_json({"version": 1, "rates": {}}), "not an nbfft-model file"),
    (lambda: M.observation_from_record({"grid": [64, 64, 64]}, {}), "lacks a field"),
])
def test_bad_input_is_a_model_error(call, what):
    with pytest.raises(M.ModelError, match=what):
        call()


def test_fit_refuses_two_networks():
    obs = _observations(_true_model())
    obs[-1].network = "100mbit"
    with pytest.raises(M.ModelError, match="several networks"):
        M.fit(obs)


def _measurement_file(path, model, layouts, cluster_rate="1gbit", with_pipeline=True):
    runs = []
    for i, lay in enumerate(layouts):
        crosses = any(M.exchange_features(lay, e)[2] > 0 for e in M.EXCHANGES)
        setting = {"where": "x", "hosts": 2 if crosses else 1, "ranks_per_node": lay.ranks_per_node,
                   "rate": cluster_rate if crosses else "", "cores": max(1, int(lay.ranks / lay.oversub)),
                   "invocation": i}
        ph = M.predict_phases(model, lay)
        rec = {"grid": list(lay.n), "proc_grid": f"{lay.m1}x{lay.m2}", "transport": "blocking", "fields": 1,
               "time_s": sum(ph.values()), "phases": {k: {"median": v} for k, v in ph.items()}}
        runs.append({"setting": setting, "record": rec})
        if with_pipeline and lay.ranks > 1:
            l4 = M.Layout(lay.n, lay.m1, lay.m2, lay.ranks_per_node, fields=4, oversub=lay.oversub)
            p4 = M.predict(model, l4)
            ph4 = {k: {"median": v} for k, v in p4.phases.items()}
            t = p4.blocking_s - 0.3 * (p4.blocking_s - p4.bound_s)
            for tr, tt, gap in (("blocking", p4.blocking_s, None), ("caller", t, 0.3), ("thread", t * 1.2, 0.1)):
                r = {"grid": list(lay.n), "proc_grid": f"{lay.m1}x{lay.m2}", "transport": tr, "fields": 4,
                     "time_s": tt, "phases": ph4, "gap_closed": gap, "pipeline_bound_s": p4.bound_s}
                runs.append({"setting": {**setting, "invocation": 1000 + i}, "record": r})
    path.write_text(json.dumps({"nbfft_model_measurements": 1, "runs": runs}))
    return path


def test_cli_fit_predict_validate_round_trip(tmp_path, capsys):
    true = _true_model()
    lays = _layouts()
    fitf = _measurement_file(tmp_path / "fit.json", true, lays)
    val = [M.Layout((96,) * 3, 1, 4, 1, oversub=2), M.Layout((128,) * 3, 1, 8, 1, oversub=4)]
    valf = _measurement_file(tmp_path / "val.json", true, val)
    mf = tmp_path / "model.json"
    assert C.main(["fit", str(fitf), "--out", str(mf)]) == 0
    out = capsys.readouterr().out
    assert "R^2" in out and "inter-node" in out and "gap closed 30 %" in out
    assert C.main(["validate", "--model", str(mf), str(valf), "--json", str(tmp_path / "v.json")]) == 0
    v = json.loads((tmp_path / "v.json").read_text())
    assert v["summary"]["blocking"]["max_abs"] < 1e-3
    assert v["summary"]["pipelined"]["max_abs"] < 1e-3
    assert C.main(["validate", "--model", str(mf), str(fitf)]) == 2   # in-sample refused
    assert "used in the fit" in capsys.readouterr().err
    assert C.main(["predict", "--model", str(mf), "--grid", "1024,8192", "--ranks", "64,16384",
                   "--network", "alpha=1.5us,bw=100gbit,ranks-per-node=64"]) == 0
    table = capsys.readouterr().out
    assert "8192^3" in table and "16384" in table and "no process grid" not in table


@pytest.mark.parametrize("argv, what", [
    (["fit", "/nonexistent.json", "--out", "/tmp/x.json"], "cannot read measurements"),
    (["predict", "--model", "/nonexistent.json", "--grid", "64", "--ranks", "4"], "cannot read model"),
    (["measure", "--out", "/tmp/x.json", "--build", "/nonexistent"], "nbfft-sine is missing"),
    (["measure", "--out", "/tmp/x.json", "--cluster", "4@1gbit"], "HOSTSxRANKS@RATE"),
    (["predict", "--model", "/nonexistent.json", "--grid", "100000000000", "--ranks", "4"], "every size must be <="),
    # issue 37: outputs in a missing folder refused before the work (were tracebacks at its
    # end), each option named alone, an unknown option named before a missing required one
    (["fit", "/nonexistent.json", "--out", "/nonexistent-nbfft-dir/m.json"], "--out: cannot write"),
    (["predict", "--model", "/nonexistent.json", "--grid", "64", "--ranks", "4", "--json", "/nonexistent-nbfft-dir/p.json"],
     "--json: cannot write"),
    (["validate", "/nonexistent.json", "--model", "/nonexistent.json", "--json", "/nonexistent-nbfft-dir/v.json"],
     "--json: cannot write"),
])
def test_cli_bad_input_exits_2_with_a_message(argv, what, capsys):
    assert C.main(argv) == 2
    assert what in capsys.readouterr().err


@pytest.mark.parametrize("extra, what", [
    (["--out", "/nonexistent-nbfft-dir/m.json"], "--out: cannot write"),  # before the runs, not after
    (["--out", "OUT", "--iters", "0"], "--iters must be >= 1, got 0"),
    (["--out", "OUT", "--grids", "1,8"], "--grids must be >= 2, got 1"),
    (["--out", "OUT", "--ranks", "2,0"], "--ranks must be >= 1, got 0"),
])
def test_cli_measure_refuses_before_running(tmp_path, extra, what, capsys):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "nbfft-sine").write_text("#!/bin/sh\nexit 99\n")  # never run
    argv = ["measure", "--build", str(tmp_path), *[str(tmp_path / "m.json") if a == "OUT" else a for a in extra]]
    assert C.main(argv) == 2
    assert what in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["predict", "--modle", "m.json", "--grid", "8", "--ranks", "2"], ["fit", "--bogus"]])
def test_cli_unknown_option_is_named_not_a_required_one(argv, capsys):
    with pytest.raises(SystemExit) as e:
        C.main(argv)
    assert e.value.code == 2
    assert "unrecognized arguments: " + argv[1] in capsys.readouterr().err


def test_cli_rejects_a_file_that_is_not_measurements(tmp_path, capsys):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps([{"grid": [64, 64, 64]}]))
    assert C.main(["fit", str(f), "--out", str(tmp_path / "m.json")]) == 2
    assert "not an nbfft-model measurement file" in capsys.readouterr().err
    mf = tmp_path / "m2.json"
    fitf = _measurement_file(tmp_path / "fit.json", _true_model(), _layouts())
    assert C.main(["fit", str(fitf), "--out", str(mf)]) == 0
    capsys.readouterr()
    assert C.main(["predict", "--model", str(mf), "--grid", "64", "--ranks", "0"]) == 2
    assert "--ranks" in capsys.readouterr().err
    assert C.main(["predict", "--model", str(mf), "--grid", "64", "--ranks", "4", "--network", "beta=fast"]) == 2
    assert "beta" in capsys.readouterr().err


def test_measurement_plan_is_small_and_valid():
    plan = C.plan_measurements((2, 2, "1gbit"), [64, 128], [], 4, "caller,thread", 3)
    assert all(p["np"] == 4 for p in plan)
    assert any("2x2" in " ".join(p["args"]) for p in plan)
    assert any("--fields" in p["args"] for p in plan)
    local = C.plan_measurements(None, [64], [1, 2, 4], 1, "caller", 3)
    assert [p["np"] for p in local] == [1, 2, 4]
    with pytest.raises(M.ModelError, match="HOSTSxRANKS@RATE"):
        C.parse_cluster("4@1gbit")
    assert math.isfinite(M.sizes(M.Layout((2, 2, 2), 1, 1, 1))["fft_x"])
