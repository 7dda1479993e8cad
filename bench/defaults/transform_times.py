# Issue 34: the measurement behind docs/fft.md "Defaults, chosen by measurement".
# mpiexec -n 2 python bench/defaults/transform_times.py [ROUNDS] [all|effort|fields]
"""Issue 34: the defaults chosen by measurement. Plan time and transform time of effort=estimate
against effort=measure (3-D plan and N-D plan), and forward_many of 3 fields with
fields_in_flight 1 against 2, interleaved A B A B in one process per configuration."""
import sys, time, statistics
import numpy as np
from mpi4py import MPI
import nbfft

comm = MPI.COMM_WORLD
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3

def timed(f, n):
    ts = []
    for _ in range(n):
        comm.Barrier(); t = time.perf_counter(); f(); comm.Barrier(); ts.append(time.perf_counter() - t)
    return statistics.median(ts)

def plan3(n, **kw):
    return nbfft.Plan(comm, (n, n, n), **kw)

def ndplan(shape, **kw):
    return nbfft.NdPlan(comm, shape, **kw)

def run3(p, fields=1):
    u = []
    for _ in range(fields):
        a = p.empty_input(); a[...] = np.random.default_rng(1).random(a.shape); u.append(a)
    if fields == 1:
        return lambda: p.backward(p.forward(u[0]))
    return lambda: p.backward_many(p.forward_many(u))

def runnd(p):
    u = np.random.default_rng(1).random(p.in_shape)
    return lambda: p.backward(p.forward(u))

def case(name, make, run, variants, iters=5):
    res = {v: ([], []) for v in variants}
    for r in range(ROUNDS):
        for v in variants:
            comm.Barrier(); t = time.perf_counter(); p = make(v); comm.Barrier(); tp = time.perf_counter() - t
            tt = timed(run(p), iters)
            res[v][0].append(tp); res[v][1].append(tt)
            del p
    if comm.rank == 0:
        for v in variants:
            print("{:34s} {:22s} plan {:8.3f} s  transform {:8.2f} ms".format(
                name, str(v), statistics.median(res[v][0]), 1e3 * statistics.median(res[v][1])), flush=True)

what = sys.argv[2] if len(sys.argv) > 2 else "all"
if what in ("all", "effort"):
    for n in (128, 256):
        case("3-D %d^3 r2c fwd+bwd, %d ranks" % (n, comm.size), lambda v: plan3(n, effort=v), run3, ("estimate", "measure"))
    case("N-D 8192^2 r2c fwd+bwd, %d ranks" % comm.size, lambda v: ndplan((8192, 8192), effort=v), runnd, ("estimate", "measure"))
if what in ("all", "fields"):
    for t in ("blocking", "pairwise@caller", "pairwise@thread"):
        case("3-D 128^3 3 fields %s" % t, lambda v: plan3(128, transport=t, fields_in_flight=v),
             lambda p: run3(p, 3), (1, 2))
