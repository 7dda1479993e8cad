"""nbfft's sine/cosine and padded transforms against mpi4py-fft's, in one interleaved run.

Run it as a driver (not under mpirun); it launches one MPI job per case and rank count::

    python python/benchmarks/peers_r2r_padding.py --ranks 1,2,4 \\
        --mpirun "mpiexec.openmpi --oversubscribe --bind-to none"

In each job every variant runs one forward + one backward per round, the variants taking
turns (the first of a round rotates, so none always runs first); a round's time of a
variant is its slowest rank's. Reported: min and median over the rounds and the spread
(75th - 25th percentile over the median). Double precision, FFTW_MEASURE on both sides
(nbfft ``effort='measure'``, mpi4py-fft ``planner_effort='FFTW_MEASURE'``), blocking
exchanges, one thread per rank.

Cases (n^3 grids; nbfft's x is numpy's last axis, z the first):

* ``dct2``: every axis a DCT-II (FFTW REDFT10; backward REDFT01), real in and real out.
  nbfft ``kinds='dct2'``; mpi4py-fft ``transforms`` of ``fftw.dctn/idctn(type=2)`` on each
  axis. Both slabs: the input split in z (nbfft grid 1xP, mpi4py-fft ``grid=(-1,)``).
* ``channel``: periodic x and y, DST-II z (walls in z), real input. nbfft
  ``kinds='periodic,periodic,dst2'`` (r2c on x, the DST on complex data); mpi4py-fft's
  DST needs real data (``fftw.dstn`` asserts it), so it runs first: ``axes=(1, 2, 0)``
  (DST z, then r2c x, then c2c y), which needs z whole in the input: slabs split in y
  (``grid=(1, -1)``), where nbfft's input slabs are split in z.
* ``pad``: r2c with 3/2-rule padding, spectrum n^3 on physical (3n/2)^3. nbfft
  ``padding=1.5``; mpi4py-fft ``padding=[1.5, 1.5, 1.5]``; and ``by hand``: an nbfft plan
  of the (3n/2)^3 grid whose spectrum is kept zero outside the n^3 modes (zero, backward,
  forward, zero again: python/benchmarks/padding.py's). Slabs split in z on every side.

Conventions reconciled before timing: mpi4py-fft scales its forward by 1/N (N the logical
size: 2n per DCT-II/DST-II axis, n per periodic axis; the padded grid's for padding) and
not its backward, which is nbfft's ``norm='forward'``; both are run so. Each job first
checks, on the gathered global arrays, that nbfft's forward of the same input equals
mpi4py-fft's and that their backward of that spectrum agree (padding: forward of a random
field on the padded grid, then backward; by hand: its round trip of the padded field
must return it), to 1e-10 relative (padding: without the n/2 planes, see below); a mismatch stops the job before anything is timed.
mpi4py-fft is timed on its own planned arrays (``fft.forward()``, ``fft.backward()``),
without the copies its ``forward(a, A)`` form adds.

Nyquist: mpi4py-fft 2.0.6 halves/folds the r2c axis's n/2 coefficient only when m/2+1 is
even (``N0 % 2 == 0`` in its libfft.py, N0 the padded r2c length), so with m = 96 or 144 it
leaves that plane unfolded where nbfft folds it (docs/fft.md "Padding"); the padded check
leaves out the n/2 planes (away from them both equal numpy's truncated rfftn).
"""

import argparse
import json
import shlex
import subprocess
import sys
import os

CASES = ("dct2", "channel", "pad")


def worker(args):
    import functools

    import numpy as np
    import nbfft
    from mpi4py import MPI
    from mpi4py_fft import PFFT, newDistArray
    from mpi4py_fft import fftw

    comm = MPI.COMM_WORLD
    n, P = args.n, comm.size
    rng = np.random.default_rng(1234 + comm.rank)
    common = dict(dtype=np.float64, grid=(1, P), transport="blocking", effort="measure", norm="forward")
    peer_opts = dict(planner_effort="FFTW_MEASURE")

    def peer_gather(fft, a, spectral):
        """Global array of a mpi4py-fft block on rank 0 (None elsewhere)."""
        parts = comm.gather((fft.local_slice(spectral), np.ascontiguousarray(a)), root=0)
        if comm.rank != 0:
            return None
        g = np.zeros(fft.global_shape(spectral), dtype=a.dtype)
        for sl, blk in parts:
            g[sl] = blk
        return g

    def peer_scatter(fft, g, spectral, out):
        """Rank 0's global array g into this rank's mpi4py-fft block out."""
        g = comm.bcast(g, root=0)
        out[...] = g[fft.local_slice(spectral)]

    def agree(name, a, b):
        """Stop every rank (non-zero exit) when the gathered arrays differ."""
        err = None
        if comm.rank == 0:
            err = float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))
        err = comm.bcast(err, root=0)
        if not err < 1e-10:
            if comm.rank == 0:
                print("MISMATCH {}: relative max difference {:.3e} (n={}, P={})".format(name, err, n, P), flush=True)
            comm.Abort(3)
        return err

    checks = {}
    variants = []
    closers = []
    if args.case in ("dct2", "channel"):
        if args.case == "dct2":
            kinds = "dct2"
            dct, idct = functools.partial(fftw.dctn, type=2), functools.partial(fftw.idctn, type=2)
            peer = PFFT(comm, (n, n, n), axes=(0, 1, 2), dtype=np.float64, grid=(-1,),
                        transforms={(0,): (dct, idct), (1,): (dct, idct), (2,): (dct, idct)}, **peer_opts)
        else:
            kinds = "periodic,periodic,dst2"
            dst, idst = functools.partial(fftw.dstn, type=2), functools.partial(fftw.idstn, type=2)
            peer = PFFT(comm, (n, n, n), axes=(1, 2, 0), dtype=np.float64, grid=(1, -1),
                        transforms={(0,): (dst, idst)}, **peer_opts)
        plan = nbfft.Plan(comm, (n, n, n), kinds=kinds, **common)
        closers += [plan.close, peer.destroy]
        u, U = plan.empty_input(), plan.empty_output()
        a, A = newDistArray(peer, False), newDistArray(peer, True)
        # The same global random field on both sides.
        g = rng.standard_normal((n, n, n)) if comm.rank == 0 else None
        u[...] = plan.scatter(g, space="input")
        peer_scatter(peer, g, False, a)
        plan.forward(u, out=U)
        peer.forward(a, A)
        GU, GA = plan.gather(U, space="output"), peer_gather(peer, A, True)
        checks["forward"] = agree(args.case + " forward", GU, GA)
        # Backward of one spectrum (nbfft's, given to both).
        plan.scatter(GU, space="output", out=U)
        peer_scatter(peer, GU, True, A)
        plan.backward(U, out=u)
        peer.backward(A, a)
        checks["backward"] = agree(args.case + " backward", plan.gather(u, space="input"), peer_gather(peer, a, False))

        def run_nbfft():
            plan.forward(u, out=U)
            plan.backward(U, out=u)

        def run_peer():
            peer.forward()
            peer.backward()

        variants = [("nbfft", run_nbfft), ("mpi4py-fft", run_peer)]
    else:
        m = int(np.floor(1.5 * n))
        # mpi4py-fft plans first: its planning after an nbfft plan exists made that plan's
        # fftw_destroy_plan crash at close (64^3 padded, measure; see docs/performance.md).
        peer = PFFT(comm, (n, n, n), axes=(0, 1, 2), dtype=np.float64, grid=(-1,), padding=[1.5, 1.5, 1.5],
                    **peer_opts)
        plan = nbfft.Plan(comm, (n, n, n), padding=1.5, **common)
        big = nbfft.Plan(comm, (m, m, m), **common)
        closers += [peer.destroy, big.close, plan.close]
        assert plan.shape == (m, m, m) and tuple(peer.global_shape(False)) == (m, m, m)
        u, U = plan.empty_input(), plan.empty_output()
        a, A = newDistArray(peer, False), newDistArray(peer, True)
        g = rng.standard_normal((m, m, m)) if comm.rank == 0 else None
        u[...] = plan.scatter(g, space="input")
        peer_scatter(peer, g, False, a)
        plan.forward(u, out=U)
        peer.forward(a, A)
        GU, GA = plan.gather(U, space="output"), peer_gather(peer, A, True)
        if comm.rank == 0 and n % 2 == 0:
            # mpi4py-fft 2.0.6 folds the r2c axis's Nyquist (n/2) only when m/2+1 is even
            # (libfft.py's N0 % 2 test), so the two differ on the n/2 planes for m = 96 or 144;
            # away from them both equal numpy's rfftn truncated (checked by hand). Compare
            # without those planes, and give backward a spectrum without them.
            for g in (GU, GA):
                g[n // 2, :, :] = 0
                g[:, n // 2, :] = 0
                g[:, :, n // 2] = 0
        checks["forward"] = agree("pad forward", GU, GA)
        plan.scatter(GU, space="output", out=U)
        peer_scatter(peer, GU, True, A)
        plan.backward(U, out=u)
        peer.backward(A, a)
        checks["backward"] = agree("pad backward", plan.gather(u, space="input"), peer_gather(peer, a, False))
        # By hand: the padded field u (band-limited to the n modes, Nyquist aside) through the
        # big plan's masked round trip must come back.
        kz, ky, kx = big.wavenumbers()
        keep = lambda k: (k >= -((n - 1) // 2)) & (k <= n // 2)  # noqa: E731 - the n grid's modes
        mask = keep(kz) & keep(ky) & keep(kx)
        v, V = big.empty_input(), big.empty_output()
        plan.scatter(GU, space="output", out=U)
        # Zero the n/2 (Nyquist) modes, whose padded split over +-n/2 a one-sided mask cannot hold.
        pkz, pky, pkx = plan.wavenumbers()
        U[...] *= (np.abs(pkz) != n // 2) & (np.abs(pky) != n // 2) & (np.abs(pkx) != n // 2)
        plan.backward(U, out=u)
        big.forward(u, out=V)
        V[...] *= mask
        big.backward(V, out=v)
        checks["by hand"] = agree("pad by hand", big.gather(v, space="input"), plan.gather(u, space="input"))

        def run_padded():
            plan.backward(U, out=u)
            plan.forward(u, out=U)

        def run_by_hand():
            V[...] *= mask
            big.backward(V, out=v)
            big.forward(v, out=V)
            V[...] *= mask

        def run_peer():
            peer.backward()
            peer.forward()

        variants = [("nbfft", run_padded), ("mpi4py-fft", run_peer), ("nbfft by hand", run_by_hand)]

    times = {name: [] for name, _ in variants}
    k = len(variants)
    for r in range(args.warmup + args.rounds):
        for j in range(k):
            name, fn = variants[(r + j) % k]
            comm.Barrier()
            t0 = MPI.Wtime()
            fn()
            dt = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
            if r >= args.warmup:
                times[name].append(dt)
    grids = {"nbfft": "1x{} (z-split slabs)".format(P),
             "mpi4py-fft": "{} slabs".format("y-split" if args.case == "channel" else "z-split")}
    for c in closers:
        c()
    if comm.rank == 0:
        print("RESULT " + json.dumps({"case": args.case, "n": n, "ranks": P, "rounds": args.rounds,
                                      "checks": checks, "grids": grids, "times": times}), flush=True)


def stats(t):
    import numpy as np
    t = np.asarray(t) * 1e3
    med = float(np.median(t))
    q1, q3 = np.percentile(t, [25, 75])
    return float(np.min(t)), med, 100.0 * float(q3 - q1) / med


def label(case, n):
    if case == "pad":
        return "{}^3 -> {}^3 padded r2c".format(n, int(1.5 * n))
    return "{}^3 {}".format(n, {"dct2": "dct2 x,y,z", "channel": "periodic x,y + dst2 z"}[case])


def table(rows):
    lines = ["| transform | ranks | variant | min ms | median ms | spread | nbfft / variant (median) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        _, ref, _ = stats(r["times"]["nbfft"])
        for name, t in r["times"].items():
            mn, med, spread = stats(t)
            ratio = "-" if name == "nbfft" else "{:.2f}".format(ref / med)
            lines.append("| {} | {} | {} | {:.2f} | {:.2f} | {:.0f}% | {} |".format(
                label(r["case"], r["n"]), r["ranks"], name, mn, med, spread, ratio))
    return "\n".join(lines)


def driver(args):
    mpirun = shlex.split(args.mpirun)
    sizes = {"dct2": args.r2r_sizes, "channel": args.r2r_sizes, "pad": args.pad_sizes}
    rows = []
    for case in args.cases.split(","):
        for n in [int(s) for s in sizes[case].split(",")]:
            for p in [int(r) for r in args.ranks.split(",")]:
                rounds = args.rounds if n < 128 else max(5, args.rounds // 2)
                cmd = mpirun + ["-n", str(p), sys.executable, os.path.abspath(__file__), "--worker", "--case", case,
                                "--n", str(n), "--rounds", str(rounds), "--warmup", str(args.warmup)]
                proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      timeout=args.timeout)
                res = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
                if proc.returncode != 0 or not res:
                    print(proc.stdout[-3000:])
                    sys.exit("{} failed ({})".format(" ".join(cmd), proc.returncode))
                r = json.loads(res[-1][7:])
                rows.append(r)
                print("{} P={}: checks {} grids {}; ".format(label(case, n), p, {k: "{:.1e}".format(v) for k, v in
                      r["checks"].items()}, r["grids"]) + ", ".join(
                      "{} {:.2f} ms".format(k, stats(t)[1]) for k, t in r["times"].items()), flush=True)
    print()
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=64, help=argparse.SUPPRESS)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--r2r-sizes", default="64,128", help="n of the dct2 and channel cases")
    ap.add_argument("--pad-sizes", default="64,96", help="spectrum n of the padded case (physical 3n/2)")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--rounds", type=int, default=20, help="timed rounds (half, at least 5, from n = 128)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--mpirun", default="mpiexec --oversubscribe --bind-to none")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--json", default="", help="also write the rows to this file")
    args = ap.parse_args()
    if args.worker:
        worker(args)
    else:
        driver(args)


if __name__ == "__main__":
    main()
