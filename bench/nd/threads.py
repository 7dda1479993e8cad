#!/usr/bin/env python3
"""Threads inside N-D plans (docs/performance.md "Threads inside N-D plans"): one rank of
nbfft-bench-nd with NBFFT_THREADS=1 and =T, interleaved in rounds, per case the median ms per
forward + backward of the default N-D plan and the median of the per-round ratios.

    python3 bench/nd/threads.py [BUILD_BIN] [ROUNDS] [THREADS]
"""
import json
import os
import statistics
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/openmpi/bin"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
THREADS = sys.argv[3] if len(sys.argv) > 3 else "2"
RUN = ["mpiexec", "--oversubscribe", "--bind-to", "none", "-n", "1"]
CASES = [("4096^2 r2c", "2d", 4096, 1), ("8192^2 r2c", "2d", 8192, 1), ("8 x 128^3 r2c batch", "batch", 128, 8)]


def median_ms(case, n, batch, threads):
    env = dict(os.environ, NBFFT_THREADS=threads)
    out = subprocess.run(RUN + [BIN + "/nbfft-bench-nd", "--case", case, "--n", str(n), "--batch", str(batch),
                                "--rounds", "3", "--effort", "estimate"], env=env, capture_output=True, text=True,
                         timeout=900, check=True).stdout
    for line in out.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[7:])
            if r["who"] == "nd":
                return statistics.median(r["times"]) * 1e3
    raise RuntimeError("no RESULT line for nd")


for name, case, n, batch in CASES:
    one, many, ratio = [], [], []
    for _ in range(ROUNDS):
        a = median_ms(case, n, batch, "1")
        b = median_ms(case, n, batch, THREADS)
        one.append(a)
        many.append(b)
        ratio.append(b / a)
    print("| {} | {:.2f} | {:.2f} | {:.3f} ({:.3f}-{:.3f}) |".format(name, statistics.median(one), statistics.median(many),
                                                                      statistics.median(ratio), min(ratio), max(ratio)),
          flush=True)
