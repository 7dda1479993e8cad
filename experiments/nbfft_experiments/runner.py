"""Runs the CLIs on local ranks or on the emulated cluster, and writes one result folder."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[2]


class Skip(Exception):
    """An experiment this MPI or machine cannot run; the message says why."""


def pyplot():
    """matplotlib, imported only when a figure is drawn (`list` and `check` need none)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def legend_below(ax, ncol: int = 3, fontsize: int = 7) -> None:
    """The legend under the axes, outside the data (save() keeps it inside the image)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, fontsize=fontsize, ncol=ncol, loc="upper center",
                  bbox_to_anchor=(0.5, -0.26), frameon=False)


def robust_pct_axis(ax, values: Sequence[float], linthresh: float = 100.0) -> str:
    """A percentage axis that one extreme series cannot flatten: symlog (linear within
    +-linthresh, logarithmic beyond) when a value lies beyond 1.5 x linthresh. Returns a note
    for the title ('' when the axis stays linear)."""
    finite = [abs(v) for v in values if v == v and abs(v) != float("inf")]
    if finite and max(finite) > 1.5 * linthresh:
        ax.set_yscale("symlog", linthresh=linthresh)
        ax.axhspan(-linthresh, linthresh, color="0.94", zorder=0)
        return f"y symlog: linear within +-{linthresh:g} %"
    return ""


def errorbar(ax, x, runs: Sequence[Sequence[float]], fmt="o-", label="", scale=1.0, **kw):
    """Median over the repeated runs with a bar from the smallest to the largest run.
    runs: [run][point]."""
    import statistics
    pts = list(zip(*runs))
    med = [scale * statistics.median(p) for p in pts]
    lo = [m - scale * min(p) for m, p in zip(med, pts)]
    hi = [scale * max(p) - m for m, p in zip(med, pts)]
    return ax.errorbar(x, med, yerr=[lo, hi], fmt=fmt, label=label, capsize=2, ms=4, **kw)


@dataclass
class Cluster:
    hosts: int
    ranks_per_host: int
    rate: str

    @staticmethod
    def parse(spec: str) -> "Cluster":
        m = re.fullmatch(r"(\d+)x(\d+)@([0-9.]+[a-zA-Z]+)", spec)
        if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
            raise ValueError(f"--cluster: expected HOSTSxRANKS@RATE such as 4x1@1gbit (HOSTS, RANKS >= 1), got '{spec}'")
        return Cluster(int(m.group(1)), int(m.group(2)), m.group(3))

    @property
    def ranks(self) -> int:
        return self.hosts * self.ranks_per_host


class Launcher:
    """Builds the command line of one MPI run: local mpirun, or netcluster (root)."""

    def __init__(self, build: Path, mpi: str, cluster: Optional[Cluster], lock: Optional[str]):
        self.build = build
        self.mpi = mpi
        self.cluster = cluster
        self.lock = lock
        if cluster and os.geteuid() != 0:
            raise SystemExit("nbfft-experiments: --cluster needs root (network namespaces)")
        if cluster and mpi != "openmpi":
            raise SystemExit("nbfft-experiments: --cluster runs Open MPI only (tools/netcluster)")

    @property
    def max_ranks(self) -> int:
        return self.cluster.ranks if self.cluster else 4

    def command(self, prog: str, args: List[str], np: int) -> List[str]:
        exe = str(self.build / "bin" / prog)
        if self.cluster:
            c = self.cluster
            cmd = [str(REPO / "tools/netcluster/netcluster"), "run", "-q", "--hosts", str(c.hosts),
                   "--ranks-per-host", str(c.ranks_per_host), "--rate", c.rate, "--np", str(np), "--", exe, *args]
        elif self.mpi == "mpich":
            cmd = ["mpiexec.mpich", "-n", str(np), exe, *args]
        else:
            cmd = ["mpiexec.openmpi", "--oversubscribe", "--bind-to", "none", "-n", str(np), exe, *args]
        if not self.lock:
            return cmd
        # Under the lock, time the run itself too, so waits for the lock are not counted.
        timer = "import subprocess,sys,time;t=time.time();r=subprocess.call(sys.argv[1:]);" \
                "print('#ran %.2f s' % (time.time()-t));sys.exit(r)"
        return ["flock", self.lock, sys.executable, "-c", timer, *cmd]


class Context:
    """What an experiment sees: run a CLI, get its JSON records; draw; report progress."""

    def __init__(self, exp, launcher: Launcher, quick: bool, outdir: Path, progress, cache: Dict,
                 repeats: Optional[int] = None):
        self.exp = exp
        # Every measurement runs this many times, so each verdict can compare an effect with
        # the spread of the repeated runs (verdict.py).
        self.repeats = repeats or (3 if quick else 5)
        self.launcher = launcher
        self.quick = quick
        self.outdir = outdir
        self.progress = progress
        self.cache = cache
        self.commands: List[str] = []
        self.figures: List[str] = []
        self.notes: List[str] = []

    @property
    def mpi(self) -> str:
        return self.launcher.mpi

    @property
    def cluster(self) -> Optional[Cluster]:
        return self.launcher.cluster

    @property
    def ranks(self) -> int:
        return self.launcher.max_ranks

    def rank_counts(self, local=(1, 2, 3, 4)) -> List[int]:
        """Process counts of a scaling sweep: 1..4 locally, up to HOSTSxRANKS on the cluster."""
        if not self.cluster:
            return list(local)
        top = self.cluster.ranks
        out = sorted({max(1, top // 8), max(1, top // 4), max(1, top // 2), top} | ({top - 1} if top > 2 else set()))
        return out

    def run_json(self, prog: str, args: List[str], np: Optional[int] = None, label: str = "",
                 env: Optional[Dict[str, str]] = None, rep: int = 0) -> List[dict]:
        """Runs PROG ARGS --json TMP on np ranks (default: all); returns its records.
        The same command and repeat index within one session is run once (experiments share
        sweeps)."""
        np = np or self.ranks
        key = (prog, tuple(args), np, tuple(sorted((env or {}).items())), rep)
        shown = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        lockless = Launcher.command(self.launcher, prog, args, np)[5:] if self.launcher.lock else \
            self.launcher.command(prog, args, np)
        shown += (" " if shown else "") + " ".join(shlex.quote(a) for a in lockless if a)
        self.commands.append(shown + " --json FILE")
        if key in self.cache:
            return self.cache[key]
        what = label or f"{prog} {' '.join(args[:2])} (np={np})"
        self.progress.step(self.exp.name, f"{what} [run {rep + 1}/{self.repeats}]")
        with tempfile.TemporaryDirectory() as td:
            out = Path(td) / "out.json"
            cmd = self.launcher.command(prog, [*args, "--json", str(out)], np)
            t0 = time.time()
            env = {**os.environ, **(env or {})}
            if os.geteuid() == 0:  # Open MPI refuses root without these (CI runs as root)
                env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900, env=env)
            log = self.outdir / "log.txt"
            with open(log, "a") as f:
                f.write(f"$ {' '.join(cmd)}\n# {time.time() - t0:.1f} s, rc={p.returncode}\n{p.stdout}\n")
            ran = re.findall(r"^#ran ([0-9.]+) s$", p.stdout, re.M)
            self.progress.run_seconds += float(ran[-1]) if ran else time.time() - t0
            if p.returncode != 0:
                # The program's own error line names the problem; MPI's abort banner does not.
                own = [ln for ln in p.stdout.splitlines() if ln.startswith(f"{prog}: ")]
                tail = own[0] if own else "\n".join(p.stdout.strip().splitlines()[-6:])
                raise RuntimeError(f"{prog} failed (rc={p.returncode}): {tail}")
            recs = json.loads(out.read_text())
        self.cache[key] = recs
        return recs

    def bench(self, sub: str, args: List[str], np: Optional[int] = None, label: str = "", rep: int = 0) -> List[dict]:
        return self.run_json("nbfft-bench", [sub, *args], np, label or f"nbfft-bench {sub}", rep=rep)

    def sine(self, args: List[str], np: Optional[int] = None, label: str = "", env=None, rep: int = 0) -> List[dict]:
        return self.run_json("nbfft-sine", args, np, label or "nbfft-sine", env, rep=rep)

    def figure(self, ncols: int = 1, width: float = 6.0, height: float = 4.0, spread: bool = True):
        """spread: the figure shows medians with the runs' range (else one run, the last)."""
        plt = pyplot()
        fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), squeeze=False)
        where = f"{self.cluster.hosts} hosts x {self.cluster.ranks_per_host} @ {self.cluster.rate}" if self.cluster \
            else f"local ranks ({self.mpi}, shared memory)"
        fig.suptitle(f"seed {self.exp.seed} {self.exp.figure}: {self.exp.title}\n{where}; "
                     + (f"median of {self.repeats} runs, bars from the smallest to the largest" if spread
                        else f"the last of {self.repeats} runs"), fontsize=9)
        return fig, list(axes[0])

    def save(self, fig) -> None:
        fig.tight_layout()
        for ext in ("png", "svg"):
            path = self.outdir / f"{self.exp.name}.{ext}"
            # bbox_inches: the legends below the axes stay in the image.
            fig.savefig(path, dpi=90 if ext == "png" else None, bbox_inches="tight")
            self.figures.append(path.name)
        pyplot().close(fig)

    def note(self, text: str) -> None:
        self.notes.append(text)


class Progress:
    """One line per step: which experiment, elapsed, and an ETA from the registry weights
    scaled by the time the finished experiments took."""

    def __init__(self, total_weight: float, stream=sys.stderr):
        self.total = total_weight
        self.done = 0.0
        self.t0 = time.time()
        self.stream = stream
        self.current = ""
        self.run_seconds = 0.0  # inside MPI runs, lock waits excluded

    def start(self, i: int, n: int, name: str):
        self.current = f"[{i}/{n}] {name}"
        self._line("start")

    def step(self, name: str, what: str):
        self._line(what)

    def finish(self, weight: float):
        self.done += weight

    def _line(self, what: str):
        el = time.time() - self.t0
        eta = "?" if self.done <= 0 else f"{el / self.done * (self.total - self.done):.0f}s"
        print(f"{self.current:<34} {what:<48} elapsed {el:5.0f}s  ETA {eta}", file=self.stream, flush=True)
