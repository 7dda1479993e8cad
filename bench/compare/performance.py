"""docs/performance.md in one command: nbfft against FFTW-MPI, mpi4py-fft and FFTW's threaded
serial transform (the single-node limit), with the plan-time tuner's choice beside the default.

    make performance                        # grids 128,256 on 1, 2, 4 ranks -> docs/performance.md
    python bench/compare/performance.py --build build/openmpi --grids 128,256,512 --ranks 1,2,4

Every number is the median over --iters iterations of one forward r2c + normalization + one
backward c2r of a double N^3 field, the slowest rank's time, FFTW_MEASURE everywhere.

* nbfft: one nbfft-sine job per (grid, ranks) runs the default plan (blocking, slabs when
  they fit), the tuner's quick and exhaustive choices and FFTW-MPI (its transposed-out
  layouts, as nbfft's) with their iterations interleaved round-robin, so a noisy moment
  of the shared machine hits all of them alike.
* mpi4py-fft: PFFT slabs, forward + backward (python/benchmarks/compare.py's worker),
  when mpi4py_fft imports in this Python.
* FFTW serial: nbfft-fftw-serial, one process with as many threads as ranks, the whole grid
  in its memory (no data moves between processes).
"""

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd, timeout, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        raise RuntimeError("{} failed ({}):\n{}".format(" ".join(cmd), p.returncode, p.stdout[-3000:]))
    return p.stdout


def nbfft_runs(args, mpirun, n, p, iters):
    """Median seconds of blocking, tuned-quick, tuned-exhaustive, fftw-mpi; tuning seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "sine.json")
        cmd = mpirun + ["-n", str(p), os.path.join(args.build, "bin", "nbfft-sine"), "--grid", str(n), "--iters",
                        str(iters), "--transport", "blocking", "--autotune", "quick,exhaustive", "--autotune-budget",
                        str(args.tune_budget), "--effort", "measure", "--json", js]
        if args.fftw_mpi:
            cmd += ["--baseline", "fftw-mpi"]
        text = run(cmd, args.timeout)
        with open(js) as f:
            records = json.load(f)
    by = {}
    for r in records:
        key = "fftw-mpi" if r.get("code") == "fftw-mpi" or r.get("transport") == "fftw-mpi" else r["transport"]
        by[key] = r
    tuning = {m.group(1): (float(m.group(3)), int(m.group(2)))
              for m in re.finditer(r"\[(\w+)\] tuning: (\d+) trials in ([0-9.]+) s", text)}
    chosen = {m.group(1): m.group(2) for m in re.finditer(r"\[(\w+)\] tuning:.*?chosen: ([^\n]*)", text, re.S)}
    return by, tuning, chosen


def serial_limit(args, n, threads, iters):
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "serial.json")
        run([os.path.join(args.build, "bin", "nbfft-fftw-serial"), "--grid", str(n), "--threads", str(threads),
             "--iters", str(iters), "--json", js], args.timeout)
        with open(js) as f:
            return json.load(f)[0]["median_s"]


def mpi4py_fft(args, mpirun, n, p, iters):
    try:
        text = run(mpirun + ["-n", str(p), sys.executable, os.path.join(ROOT, "python", "benchmarks", "compare.py"),
                             "--worker", "--grid", str(n), "--iters", str(iters)], args.timeout)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return None, "failed: {}".format(str(e).splitlines()[0])
    res = json.loads([ln for ln in text.splitlines() if ln.startswith("RESULT ")][-1][7:])
    return res.get("mpi4py_fft_s"), res.get("mpi4py_fft")


def sine_json(args, mpirun, p, argv, timeout):
    """Records of one nbfft-sine job."""
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "sine.json")
        run(mpirun + ["-n", str(p), os.path.join(args.build, "bin", "nbfft-sine")] + argv + ["--json", js], timeout)
        with open(js) as f:
            return json.load(f)


def lean_rows(args, mpirun):
    """Default vs lean workspace (in place), interleaved, on 1x2, 2x1, 2x2."""
    rows = []
    for n in [int(g) for g in args.grids.split(",") if int(g) <= 256]:
        for pg in ("1x2", "2x1", "2x2"):
            p = eval(pg.replace("x", "*"))
            recs = sine_json(args, mpirun, p, ["--grid", str(n), "--proc-grid", pg, "--workspace", "default,lean",
                                               "--iters", str(args.iters), "--effort", "measure"], args.timeout)
            by = {("lean" if r["transport"].endswith("/lean") else "default"): r for r in recs}
            row = {"grid": n, "proc_grid": pg, "default": by["default"]["time_s"], "lean": by["lean"]["time_s"],
                   "default_min": by["default"]["time_min_s"], "lean_min": by["lean"]["time_min_s"],
                   "data_bytes": by["lean"]["data_bytes_per_rank"],
                   "default_ws": by["default"]["workspace_bytes_per_rank"], "lean_ws": by["lean"]["workspace_bytes_per_rank"]}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def lean_section(rows):
    lines = ["## Lean workspace", "",
             "`Options::lean_workspace` (docs/fft.md \"Memory\"): one nbfft-sine job per row runs the default plan",
             "(out of place) and the lean one (in place) with their iterations interleaved, `blocking` transport.",
             "Workspace is the plan's own bytes per rank (the most on any rank), as a multiple of the",
             "in-place array (`inplace_bytes()`).", "",
             "| grid | process grid | default ms (min) | lean ms (min) | lean / default | default workspace | lean workspace |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| {}^3 | {} | {} ({}) | {} ({}) | {:.3f} | {:.2f}x | {:.3f}x |".format(
            r["grid"], r["proc_grid"], ms(r["default"]), ms(r["default_min"]), ms(r["lean"]), ms(r["lean_min"]),
            r["lean"] / r["default"], r["default_ws"] / r["data_bytes"], r["lean_ws"] / r["data_bytes"]))
    return lines


def profile_rows(args, mpirun):
    """Phase times (median ms, forward + backward) of 1, 2 and 4 ranks, slabs and pencils."""
    rows = []
    for n in [int(g) for g in args.grids.split(",")]:
        iters = args.iters if n <= 256 else max(3, args.iters // 3)
        for p, pg in ((1, "1x1"), (2, "1x2"), (4, "1x4"), (4, "2x2")):
            if p not in [int(r) for r in args.ranks.split(",")]:
                continue
            rec = sine_json(args, mpirun, p, ["--grid", str(n), "--proc-grid", pg, "--iters", str(iters),
                                              "--effort", "measure"], args.timeout)[0]
            row = {"grid": n, "ranks": p, "proc_grid": pg, "total": rec["time_s"]}
            for k, v in rec["phases"].items():
                row[k] = v["median"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def profile_section(rows, cores=os.cpu_count() or 1):
    phases = ["fft_x", "fft_y", "fft_z", "pack", "unpack", "row", "col"]
    lines = ["## Where the time goes", "",
             "Median ms per phase of one forward + backward (nbfft-sine `phases`, rank 0; `pack`/`unpack`",
             "are the copies between planes and exchange blocks, `row`/`col` the time spent in or waiting",
             "for the exchanges). \"vs ideal\" is the total against perfect scaling of nbfft's own one-rank",
             "time over min(ranks, cores) = {} cores, a stricter limit than FFTW's threaded serial transform".format(cores),
             "above. One run per row: expect several % of noise.", "",
             "| grid | ranks | grid | " + " | ".join(phases) + " | total | vs ideal |",
             "|---|---|---|" + "---|" * (len(phases) + 2)]
    one = {r["grid"]: r["total"] for r in rows if r["ranks"] == 1}
    for r in rows:
        ideal = one.get(r["grid"])
        lines.append("| {}^3 | {} | {} | {} | {} | {} |".format(
            r["grid"], r["ranks"], r["proc_grid"], " | ".join(ms(r.get(k, 0)) for k in phases), ms(r["total"]),
            "{:.2f}".format(r["total"] / (ideal / min(r["ranks"], cores))) if ideal else "-"))
    by = {(r["grid"], r["proc_grid"]): r for r in rows}
    for n in sorted({r["grid"] for r in rows}):
        s, p = by.get((n, "1x4")), by.get((n, "2x2"))
        if s and p:
            inherent = p.get("row", 0) + max(0.0, p.get("pack", 0) - s.get("pack", 0)) + \
                max(0.0, p.get("unpack", 0) - s.get("unpack", 0))
            rest = p["total"] - s["total"] - inherent
            lines.append("")
            lines.append("{}^3 on 4 ranks: pencils (2x2) take {} ms, slabs (1x4) {} ms ({:.2f}x). The second exchange and "
                         "its copies (ROW + the extra pack/unpack) cost {} ms; the other phases together are {} ms {} "
                         "on pencils ({}), so {}.".format(
                             n, ms(p["total"]), ms(s["total"]), p["total"] / s["total"], ms(inherent), ms(abs(rest)),
                             "slower" if rest > 0 else "faster",
                             "the FFTs on shorter, strided pencils" if rest > 0 else
                             "each COL exchange among 2 ranks instead of 4",
                             "{:.0f}% of the difference is inherent to the extra exchange".format(
                                 100 * inherent / (p["total"] - s["total"])) if rest > 0 else
                             "all of the difference is the extra exchange: nothing else in the pencil path costs more"))
    return lines


def write_sections(path, sections, head):
    """Replaces the given sections of the file (between <!-- NAME --> markers), keeping the others."""
    old = open(path).read() if os.path.exists(path) else ""
    # r2r-peers: make bench-r2r's, threads: bench/compare/threads.py's, kept as they are
    order = ["compare", "lean", "profile", "threads", "r2r-peers"]
    parts = {}
    for name in order:
        m = re.search(r"<!-- {0} -->\n(.*?)<!-- /{0} -->\n".format(name), old, re.S)
        if m:
            parts[name] = m.group(1)
    parts.update(sections)
    text = "\n".join(head) + "\n"
    for name in order:
        if name in parts:
            text += "\n<!-- {0} -->\n{1}<!-- /{0} -->\n".format(name, parts[name])
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def existing_rows(path):
    """The raw JSON rows of the compare section of an existing docs/performance.md."""
    if not os.path.exists(path):
        return []
    m = re.search(r"<!-- compare -->\n.*?```\n(.*?)```", open(path).read(), re.S)
    return [json.loads(ln) for ln in m.group(1).splitlines() if ln.strip()] if m else []


def ms(x):
    return "{:.2f}".format(1e3 * x) if isinstance(x, (int, float)) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "openmpi"))
    ap.add_argument("--grids", default="128,256")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--tune-budget", type=float, default=30)
    ap.add_argument("--mpirun", default="mpiexec --oversubscribe --bind-to none")
    ap.add_argument("--no-fftw-mpi", dest="fftw_mpi", action="store_false", help="MPICH builds have no FFTW-MPI")
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "performance.md"))
    ap.add_argument("--sections", default="compare,lean,profile",
                    help="which tables to (re)make; the others are kept from the existing file")
    args = ap.parse_args()
    mpirun = shlex.split(args.mpirun)
    want = args.sections.split(",")
    sections = {}
    if "lean" in want:
        sections["lean"] = "\n".join(lean_section(lean_rows(args, mpirun))) + "\n"
    if "profile" in want:
        sections["profile"] = "\n".join(profile_section(profile_rows(args, mpirun))) + "\n"
    if "compare" in want:
        sections["compare"] = compare(args, mpirun)
    host = run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2; nproc"], 30).split("\n")
    head = [
        "# Performance: nbfft against the distributed FFTs users have, and the single-node limit",
        "",
        "Made by `make performance` (bench/compare/performance.py; `--sections` remakes some tables) on",
        "{} ({} cores, {}), last {}. All ranks share the machine's cores (more ranks than cores".format(
            host[0].strip(), host[1].strip(), os.path.basename(os.path.normpath(args.build)),
            datetime.date.today().isoformat()),
        "oversubscribe them). The emulated-cluster numbers are in [performance-cluster.md](performance-cluster.md).",
    ]
    write_sections(args.out, sections, head)
    print("wrote", args.out)


def compare(args, mpirun):
    rows = []
    for n in [int(g) for g in args.grids.split(",")]:
        for p in [int(r) for r in args.ranks.split(",")]:
            iters = args.iters if n <= 256 else max(3, args.iters // 3)
            by, tuning, chosen = nbfft_runs(args, mpirun, n, p, iters)
            m4, m4_note = mpi4py_fft(args, mpirun, n, p, iters)
            ser = serial_limit(args, n, p, iters)
            row = {"grid": n, "ranks": p, "iters": iters,
                   "blocking": by["blocking"]["time_s"], "proc_grid": by["blocking"]["proc_grid"],
                   "quick": by["tuned-quick"]["time_s"], "exhaustive": by["tuned-exhaustive"]["time_s"],
                   "quick_grid": by["tuned-quick"]["proc_grid"], "exhaustive_grid": by["tuned-exhaustive"]["proc_grid"],
                   "tune_quick_s": tuning.get("quick", (None, 0))[0], "tune_quick_trials": tuning.get("quick", (0, 0))[1],
                   "tune_exhaustive_s": tuning.get("exhaustive", (None, 0))[0],
                   "tune_exhaustive_trials": tuning.get("exhaustive", (0, 0))[1],
                   "chosen_quick": chosen.get("quick", ""), "chosen_exhaustive": chosen.get("exhaustive", ""),
                   "fftw_mpi": by["fftw-mpi"]["time_s"] if "fftw-mpi" in by else None,
                   "mpi4py_fft": m4, "mpi4py_fft_note": m4_note, "serial": ser}
            rows.append(row)
            print(json.dumps(row), flush=True)
    # Rows of other grids / rank counts from the existing file are kept (marked with their
    # own iteration count and time of making), so a run of some grids updates only those.
    made = {(r["grid"], r["ranks"]) for r in rows}
    rows += [r for r in existing_rows(args.out) if (r["grid"], r["ranks"]) not in made]
    rows.sort(key=lambda r: (r["grid"], r["ranks"]))

    lines = [
        "## nbfft against the others",
        "",
        "Median ms per forward r2c + normalization + backward c2r of a double N^3 field, slowest rank,",
        "FFTW_MEASURE everywhere; nbfft's runs and FFTW-MPI interleaved in one job per row. P3DFFT,",
        "2DECOMP&FFT and heFFTe are not in the package registries this machine reaches (Debian, PyPI), so",
        "they are not in the one-command table. \"serial limit\" is FFTW's threaded 3D transform of the",
        "whole grid in one process (no data moves between processes); the profile below adds the stricter",
        "limit of perfect scaling of nbfft's own one-rank time.",
        "",
        "| grid | ranks | nbfft default | nbfft tuned (quick) | tuned (exhaustive) | quick / exhaustive | tuning s (quick / exhaustive) |"
        " FFTW-MPI | mpi4py-fft | FFTW serial, threads = ranks | nbfft best / best other | nbfft best / serial limit |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        best = min(r["blocking"], r["quick"])
        others = [x for x in (r["fftw_mpi"], r["mpi4py_fft"]) if x]
        lines.append("| {g}^3 | {p} | {b} ({bg}) | {q} ({qg}) | {e} ({eg}) | {qe:.3f} | {tq} / {te} | {f} | {m} | {s} | {bo} | {bs:.2f} |".format(
            g=r["grid"], p=r["ranks"], b=ms(r["blocking"]), bg=r["proc_grid"], q=ms(r["quick"]), qg=r["quick_grid"],
            e=ms(r["exhaustive"]), eg=r["exhaustive_grid"], qe=r["quick"] / r["exhaustive"],
            tq="{:.1f}".format(r["tune_quick_s"]) if r["tune_quick_s"] is not None else "-",
            te="{:.1f}".format(r["tune_exhaustive_s"]) if r["tune_exhaustive_s"] is not None else "-",
            f=ms(r["fftw_mpi"]), m=ms(r["mpi4py_fft"]) if r["mpi4py_fft"] else "n/a", s=ms(r["serial"]),
            bo="{:.2f}".format(best / min(others)) if others else "-", bs=best / r["serial"]))
    lines += ["", "The tuner's choices:", ""]
    for r in rows:
        lines.append("- {}^3 on {} ranks: quick ({} trials): {}; exhaustive ({} trials): {}".format(
            r["grid"], r["ranks"], r["tune_quick_trials"], r["chosen_quick"], r["tune_exhaustive_trials"],
            r["chosen_exhaustive"]))
    notes = sorted({r["mpi4py_fft_note"] for r in rows if r["mpi4py_fft_note"]})
    if notes:
        lines += ["", "mpi4py-fft: " + "; ".join(notes)]
    return "\n".join(lines) + "\n\nRaw rows (JSON):\n\n```\n" + "\n".join(json.dumps(r) for r in rows) + "\n```\n"


if __name__ == "__main__":
    main()
