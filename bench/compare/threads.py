"""Threads inside each rank (issue 19): nbfft 1 rank x T threads and T ranks x 1 thread against
FFTW's threaded serial transform and FFTW-MPI (with threads, and on T ranks), in interleaved rounds.

    python bench/compare/threads.py --build build/openmpi --grids 128,256 --rounds 5
    python bench/compare/threads.py --build build/openmpi --grids 512 --rounds 2 --cases r2c:double

Each round runs, for every grid and case (transform:precision), one job of each code back to
back, each job timing --iters iterations (forward + normalization + backward, the slowest rank)
after a warm-up, and keeps the job's median; the table shows the median over rounds and the
spread (lowest-highest round). Jobs, in order within a round:
  * fftw-serial: nbfft-fftw-serial --threads T (one process, the whole grid);
  * 1 rank x T threads: one nbfft-sine job, `mpirun --bind-to none -n 1 ... --threads T
    --baseline fftw-mpi --sequential`: nbfft's iterations back to back, then FFTW-MPI's with T
    FFTW threads;
  * T ranks x 1 thread: one nbfft-sine job `mpirun -n T ... --baseline fftw-mpi --sequential`
    (nbfft's default plan, slabs, blocking), FFTW-MPI on T ranks after it.
Each code's iterations run back to back, as FFTW serial's do in its own process: alternating
nbfft's and FFTW-MPI's iterations inside one job (--interleave-baseline, the way before
2026-11-27) slowed both by 10-25% at 128^3 against the same codes run back to back
(1 rank x 2 threads, r2c double: nbfft 10.4 ms against 8.0-9.7, FFTW-MPI 10.5-10.7 against
8.5-9.3), while FFTW serial, alone in its job, kept its speed.
FFTW_MEASURE everywhere (FFTW wisdom kept per job kind in a temporary directory, so later rounds
skip the planning); each job holds /tmp/cpu.lock when --lock is given (this shared machine).
Every code transforms the same sine field and checks each round trip untimed. In single
precision its spectrum reaches the subnormal range, where x86 arithmetic can be several times
slower; --flush-subnormals passes the flag of that name to every job (FTZ/DAZ in every thread).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("{} failed ({}):\n{}".format(" ".join(cmd), p.returncode, p.stdout[-3000:]))
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/openmpi")
    ap.add_argument("--grids", default="128,256")
    ap.add_argument("--cases", default="r2c:double,c2c:double,r2c:single,c2c:single")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=0, help="iterations per job (0: 10 at 128, 5 at 256, 2 above)")
    ap.add_argument("--effort", default="measure")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--lock", default="", help="flock this file around each job")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--flush-subnormals", action="store_true", help="FTZ/DAZ in every code (x86)")
    ap.add_argument("--interleave-baseline", action="store_true",
                    help="alternate nbfft's and FFTW-MPI's iterations inside each nbfft-sine job (the old way)")
    ap.add_argument("--json", default="")
    ap.add_argument("--table", default="", help="print the table of a cut-short run's JSON.partial and exit")
    args = ap.parse_args()
    if args.table:
        with open(args.table) as f:
            samples = {tuple(e[:4]): e[4] for e in json.load(f)}
        grids = sorted({k[0] for k in samples})
        cases = [c for c in (tuple(c.split(":")) for c in args.cases.split(","))]
        table(samples, grids, cases, args.threads, "")
        return
    T = args.threads
    bin_ = os.path.join(args.build, "bin")
    lock = ["flock", args.lock] if args.lock else []
    mpirun = args.mpirun.split() + ["--oversubscribe"]
    grids = [int(g) for g in args.grids.split(",")]
    cases = [tuple(c.split(":")) for c in args.cases.split(",")]
    samples = {}  # (n, transform, precision, code) -> [median per round]
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            for n in grids:
                iters = args.iters or (10 if n <= 128 else 5 if n <= 256 else 2)
                for tr, pr in cases:
                    key = (n, tr, pr)
                    common = ["--grid", str(n), "--iters", str(iters), "--effort", args.effort, "--transform", tr,
                              "--precision", pr] + (["--flush-subnormals"] if args.flush_subnormals else [])
                    js = os.path.join(tmp, "serial.json")
                    run(lock + [os.path.join(bin_, "nbfft-fftw-serial"), "--threads", str(T), "--json", js] + common,
                        args.timeout)
                    with open(js) as f:
                        samples.setdefault(key + ("fftw serial {} thr".format(T),), []).append(json.load(f)[0]["median_s"])
                    for label, launch, extra in (
                            ("1 rank x {} thr".format(T), ["--bind-to", "none", "-n", "1"], ["--threads", str(T)]),
                            ("{} ranks x 1 thr".format(T), ["-n", str(T)], ["--threads", "1"])):
                        js = os.path.join(tmp, "sine.json")
                        wisdom = os.path.join(tmp, "w-{}-{}-{}-{}".format(n, tr, pr, label.replace(" ", "")))
                        order = [] if args.interleave_baseline else ["--sequential"]
                        run(lock + mpirun + launch + [os.path.join(bin_, "nbfft-sine"), "--baseline", "fftw-mpi",
                                                      "--wisdom", wisdom, "--json", js] + order + common + extra,
                            args.timeout)
                        with open(js) as f:
                            for r in json.load(f):
                                code = "fftw-mpi" if r["transport"] == "fftw-mpi" else "nbfft"
                                samples.setdefault(key + ("{} {}".format(code, label),), []).append(r["time_s"])
                    print("round {} {}^3 {} {} done".format(rnd + 1, n, tr, pr), file=sys.stderr, flush=True)
                    if args.json:  # what the rounds so far measured, in case the run is cut short
                        with open(args.json + ".partial", "w") as f:
                            json.dump([list(k) + [v] for k, v in samples.items()], f)
    table(samples, grids, cases, T, args.json)


def table(samples, grids, cases, T, out):
    rows = []
    print("| grid | transform | precision | code | median ms | spread (rounds) | / fftw serial {} thr |".format(T))
    print("|---|---|---|---|---|---|---|")
    for n in grids:
        for tr, pr in cases:
            key = (n, tr, pr)
            if key + ("fftw serial {} thr".format(T),) not in samples:
                continue
            ref = statistics.median(samples[key + ("fftw serial {} thr".format(T),)])
            for code in ("fftw serial {} thr".format(T), "nbfft 1 rank x {} thr".format(T),
                         "nbfft {} ranks x 1 thr".format(T), "fftw-mpi 1 rank x {} thr".format(T),
                         "fftw-mpi {} ranks x 1 thr".format(T)):
                v = samples.get(key + (code,), [])
                if not v:
                    continue
                med = statistics.median(v)
                rows.append({"grid": n, "transform": tr, "precision": pr, "code": code, "median_s": med,
                             "rounds_s": v})
                print("| {}^3 | {} | {} | {} | {:.2f} | {:.2f}-{:.2f} | {:.3f} |".format(
                    n, tr, pr, code, med * 1e3, min(v) * 1e3, max(v) * 1e3, med / ref), flush=True)
    if out:
        with open(out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
