"""nbfft's scaling model: seed 002 §5 generalized from one fitted curve per kernel to
per-stage rates and a two-level network, so that runs on a few ranks predict grids up to
8192^3 on up to 16,384 ranks.

Seed 002 fitted t_comp = a0 + a1/np and t_comm = a0 + a1/(a2 + np) to one kernel on one
grid. Here every phase nbfft-sine times (include/nbfft/fft/timings.hpp) gets a cost that
follows from the decomposition (docs/fft.md), with a few machine constants fitted by least
squares:

  fft_x, fft_y, fft_z   rate_s * (points of the slowest rank's pencil) * log2(n_s)
                        (seconds per point.log2 n, one rate per stage: x is r2c on reals,
                        z carries the fused normalization)
  pack, unpack          rate * bytes copied (seconds per byte)
  row, col exchanges    per direction and field, for a communicator of M ranks with
                        stride s (ROW: M1, s=1; COL: M2, s=M1), blocks of b = B/M bytes:
                          (m_intra) * alpha_intra + m_intra * b * beta_intra      (shared memory)
                        + (m_inter) * alpha_inter + R * m_inter * b * beta_inter  (network)
                        m_intra/m_inter = peers on this node / on other nodes, R = ranks
                        per node: the R ranks of a node all exchange at once through one
                        link, so beta_inter is the node link's seconds per byte.

Compute and shared-memory copies are CPU work. When more ranks share a machine than it has
cores (`oversub = ranks/cores` > 1: the emulated cluster on this 2-core box), the ranks take
turns: each rank's own phases hardly lengthen (measured), but the blocking exchanges wait
for the peers' turns, so a run costs (1 + theta (oversub - 1)) times its CPU work, theta
fitted (1 = the CPU work fully serialized). Bytes between hosts are moved by the
(emulated) NIC and are not scaled.

Blocking time = the sum of the phases + that wait for the CPU. The pipelined bound is seed 000 Fig. 4's (the one
nbfft-sine's Table II uses): per direction d with per-field compute C_d (FFTs, copies, the
ROW exchange, which the pipeline leaves blocking) and COL exchange T_d,
  bound = sum_d max(NV*C_d, NV*T_d + C_d).
What the pipeline really achieves is modelled by the measured share of the gap it closes,
g = (blocking - t) / (blocking - bound): expected = blocking - g * (blocking - bound).

Every function here is pure (numpy only); tools/nbfft-model (model_cli.py) runs and
prints them. Bad input raises ModelError with a message that names the problem.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, asdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

COMPUTE_PHASES = ("fft_x", "fft_y", "fft_z", "pack", "unpack")
EXCHANGES = ("row", "col")
MODEL_VERSION = 1


class ModelError(ValueError):
    """Bad input to the model (a grid, a network description, a measurement file)."""


# ----------------------------------------------------------------------------- parsing
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12}
_BYTES_PER_S = {"bit": 1 / 8, "kbit": 1e3 / 8, "mbit": 1e6 / 8, "gbit": 1e9 / 8, "tbit": 1e12 / 8,
                "b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
                "bps": 1 / 8, "kbps": 1e3 / 8, "mbps": 1e6 / 8, "gbps": 1e9 / 8}


def _number(text: str, what: str) -> Tuple[float, str]:
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zA-Zµ/]*)\s*", text)
    if not m:
        raise ModelError(f"{what}: expected a number with a unit, got '{text}'")
    return float(m.group(1)), m.group(2)


def parse_time(text: str, what: str = "time") -> float:
    """'2us', '1.5 µs', '0.3ms', '1e-6s', '1e-6' (seconds) -> seconds."""
    v, unit = _number(text, what)
    unit = unit or "s"
    if unit not in _TIME:
        raise ModelError(f"{what}: unknown time unit '{unit}' in '{text}' (use s, ms, us, ns)")
    return v * _TIME[unit]


def parse_beta(text: str, what: str = "beta") -> float:
    """Seconds per byte: '0.1ns/B', '8ns/B', '1e-10' (s/B)."""
    v, unit = _number(text, what)
    if not unit:
        return v
    m = re.fullmatch(r"(s|ms|us|µs|ns|ps)/B", unit)
    if not m:
        raise ModelError(f"{what}: expected seconds per byte such as '0.1ns/B', got '{text}'")
    return v * _TIME[m.group(1)]


def parse_bandwidth(text: str, what: str = "bw") -> float:
    """Bytes per second: '100gbit', '100Gbit/s', '12.5GB/s', '1gbit' -> B/s."""
    v, unit = _number(text, what)
    u = unit[:-2] if unit.endswith("/s") else unit
    key = u.lower() if u.lower().endswith("bit") or u.lower().endswith("bps") else u.lower()
    # 'GB' (bytes) vs 'Gbit' (bits): only the 'bit'/'bps' spellings mean bits.
    if key not in _BYTES_PER_S or v <= 0:
        raise ModelError(f"{what}: expected a bandwidth such as '100gbit' or '12.5GB/s', got '{text}'")
    return v * _BYTES_PER_S[key]


def parse_grid(text: str) -> Tuple[int, int, int]:
    """'128' -> (128,128,128); '64x64x128' or '64,64,128' -> that."""
    t = str(text).strip()
    if not re.fullmatch(r"\d+|\d+[x,]\d+[x,]\d+", t):
        raise ModelError(f"grid: expected N or NXxNYxNZ, got '{text}'")
    parts = re.split(r"[x,]", t)
    n = tuple(int(p) for p in (parts * 3 if len(parts) == 1 else parts))
    if min(n) < 2:
        raise ModelError(f"grid: expected N or NXxNYxNZ with every size >= 2, got '{text}'")
    if max(n) > 2**31 - 1:  # nbfft-sine's --grid range: the model predicts only what can be measured
        raise ModelError(f"grid: every size must be <= {2**31 - 1}, got '{text}'")
    return n  # type: ignore[return-value]


def parse_proc_grid(text: str) -> Tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)x(\d+)\s*", str(text))
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise ModelError(f"process grid: expected M1xM2 such as 1x4 or 2x2, got '{text}'")
    return int(m.group(1)), int(m.group(2))


# ----------------------------------------------------------------------------- geometry
@dataclass(frozen=True)
class Layout:
    """One configuration: global grid, process grid, placement and how many fields."""
    n: Tuple[int, int, int]
    m1: int
    m2: int
    ranks_per_node: int          # consecutive ranks share a node (netcluster: host by host)
    fields: int = 1
    transform: str = "r2c"
    precision: str = "double"
    oversub: float = 1.0         # ranks per core on the machine(s) running them, >= 1

    @property
    def ranks(self) -> int:
        return self.m1 * self.m2

    def check(self) -> "Layout":
        nx, ny, nz = self.n
        if min(self.n) < 2:
            raise ModelError(f"grid {nx}x{ny}x{nz}: every size must be >= 2")
        if self.m1 < 1 or self.m2 < 1:
            raise ModelError(f"process grid {self.m1}x{self.m2}: both factors must be >= 1")
        if self.ranks_per_node < 1:
            raise ModelError(f"ranks per node must be >= 1, got {self.ranks_per_node}")
        if self.fields < 1:
            raise ModelError(f"fields must be >= 1, got {self.fields}")
        if self.transform not in ("r2c", "c2c"):
            raise ModelError(f"transform must be r2c or c2c, got '{self.transform}'")
        if self.precision not in ("double", "single"):
            raise ModelError(f"precision must be double or single, got '{self.precision}'")
        if not self.oversub >= 1.0:
            raise ModelError(f"oversubscription (ranks per core) must be >= 1, got {self.oversub}")
        return self


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def fits(n: Sequence[int], m1: int, m2: int) -> Optional[str]:
    """None when process grid m1 x m2 leaves no rank without points of grid n (pencils as
    in docs/fft.md: M1 splits y then xc, M2 splits z then y), else why not."""
    nx, ny, nz = n
    xc = nx // 2 + 1
    if m1 > min(ny, xc):
        return f"M1 = {m1} > min(ny, nx/2+1) = {min(ny, xc)}"
    if m2 > min(nz, ny):
        return f"M2 = {m2} > min(nz, ny) = {min(nz, ny)}"
    return None


def sizes(lay: Layout) -> Dict[str, float]:
    """Per-rank quantities of one forward+backward of all fields (slowest rank: the
    larger part where a split is uneven)."""
    lay.check()
    nx, ny, nz = lay.n
    real = 8 if lay.precision == "double" else 4
    xc = nx // 2 + 1 if lay.transform == "r2c" else nx
    m1, m2 = lay.m1, lay.m2
    y1, z2 = _ceil_div(ny, m1), _ceil_div(nz, m2)          # X pencil: nx x y1 x z2
    x1 = _ceil_div(xc, m1)                                 # Y pencil: x1 x ny x z2
    y2 = _ceil_div(ny, m2)                                 # Z pencil: x1 x y2 x nz
    k = 2.0 * lay.fields                                   # forward + backward, every field
    x_factor = 0.5 if lay.transform == "r2c" else 1.0      # an r2c of n reals ~ a c2c of n/2
    s = {
        "fft_x": k * y1 * z2 * nx * math.log2(nx) * x_factor,
        "fft_y": k * x1 * z2 * ny * math.log2(ny),
        "fft_z": k * x1 * y2 * nz * math.log2(nz),
    }
    cplx = 2 * real
    b_y = cplx * x1 * ny * z2          # the Y pencil (what the ROW exchange fills / COL sends)
    b_z = cplx * x1 * y2 * nz          # the Z pencil (what the COL exchange fills)
    b_x = cplx * xc * y1 * z2          # the X pencil after the x FFT (what ROW sends)
    # Copies into/out of exchanges (timings.hpp): each exchange's data once each way per
    # direction (the slab/M2=1 COL step is a copy too), plus the user's spectrum into the
    # padded z plane (pack, backward) and the finished z plane out (unpack, forward).
    row_bytes = b_x if m1 > 1 else 0.0
    copies = row_bytes + max(b_y, b_z) + 0.5 * b_z
    s["pack"] = k * copies
    s["unpack"] = k * copies
    s["ranks"] = m1 * m2
    s["row_block"] = b_x / m1 if m1 > 1 else 0.0
    s["col_block"] = b_y / m2 if m2 > 1 else 0.0
    in_bytes = real * (1 if lay.transform == "r2c" else 2) * nx * y1 * z2
    out_bytes = cplx * x1 * y2 * nz
    s["data_bytes"] = max(in_bytes, out_bytes)
    # The plan's own buffers as of this commit (docs/fft.md "How a stage works"): per
    # exchange, side 0 holds the peers' blocks, side 1 the whole pencil; an M2 = 1 COL step
    # keeps its padded block; one workspace per field in flight.
    ws = 0.0
    if m1 > 1:
        ws += b_x * (m1 - 1) / m1 + b_y
    ws += b_y * (m2 - 1) / m2 + b_z if m2 > 1 else b_z
    s["workspace_bytes"] = ws
    return s


def peers(size: int, stride: int, ranks_per_node: int) -> Tuple[int, int]:
    """(peers on this node, peers on other nodes) of rank 0 in a communicator of `size`
    ranks whose world ranks are 0, stride, 2*stride, ... with `ranks_per_node` consecutive
    world ranks per node."""
    if size <= 1:
        return 0, 0
    local = min(size, _ceil_div(ranks_per_node, stride))
    return local - 1, size - local


def exchange_features(lay: Layout, which: str) -> np.ndarray:
    """[intra messages, intra bytes, inter messages, node-link bytes] of one exchange
    kind, summed over forward+backward and all fields, for the slowest rank."""
    s = sizes(lay)
    if which == "row":
        size, stride, block = lay.m1, 1, s["row_block"]
    elif which == "col":
        size, stride, block = lay.m2, lay.m1, s["col_block"]
    else:
        raise ModelError(f"exchange must be row or col, got '{which}'")
    intra, inter = peers(size, stride, lay.ranks_per_node)
    on_node = min(lay.ranks_per_node, lay.ranks)
    k = 2.0 * lay.fields
    return k * np.array([intra, intra * block, inter, on_node * inter * block], float)


# ----------------------------------------------------------------------------- the model
@dataclass
class Network:
    alpha_intra: float = 0.0   # s per message, shared memory
    beta_intra: float = 0.0    # s per byte, shared memory (per rank)
    alpha_inter: Optional[float] = None  # s per message between nodes
    beta_inter: Optional[float] = None   # s per byte through a node's link
    ranks_per_node: Optional[int] = None

    def check_inter(self) -> None:
        if self.alpha_inter is None or self.beta_inter is None:
            raise ModelError("the model has no inter-node network (fit it with emulated-cluster runs, "
                             "or describe one: --network \"alpha=2us,beta=0.1ns/B,ranks-per-node=64\")")


@dataclass
class Model:
    rates: Dict[str, float]                 # phase -> s per unit of sizes()[phase]
    network: Network
    gap_closed: Optional[float] = None      # measured share of blocking - bound the pipeline closes
    fit_report: Dict = field(default_factory=dict)
    theta: float = 1.0                      # share of the CPU work that serializes when oversubscribed
    version: int = MODEL_VERSION

    def to_json(self) -> Dict:
        return {"version": self.version, "rates": self.rates, "network": asdict(self.network),
                "gap_closed": self.gap_closed, "theta": self.theta, "fit": self.fit_report}

    @staticmethod
    def from_json(d: Dict) -> "Model":
        try:
            if d.get("version") != MODEL_VERSION:
                raise ModelError(f"model file version {d.get('version')} is not {MODEL_VERSION}")
            rates = {k: float(d["rates"][k]) for k in COMPUTE_PHASES}
            net = Network(**d["network"])
        except (KeyError, TypeError, AttributeError) as e:
            raise ModelError(f"not an nbfft-model file (missing {e})") from None
        return Model(rates, net, d.get("gap_closed"), d.get("fit", {}), float(d.get("theta", 1.0)))


def with_network(model: Model, spec: Optional[str]) -> Model:
    """The model with its inter-node network replaced by a description such as
    'alpha=2us,beta=0.1ns/B,ranks-per-node=64' (or bw=100gbit instead of beta;
    intra-alpha=, intra-beta= override the measured shared-memory constants)."""
    if not spec:
        return model
    net = Network(**asdict(model.network))
    for item in spec.split(","):
        if not item.strip():
            continue
        if "=" not in item:
            raise ModelError(f"--network: expected KEY=VALUE, got '{item}'")
        k, v = (x.strip() for x in item.split("=", 1))
        if k == "alpha":
            net.alpha_inter = parse_time(v, "alpha")
        elif k == "beta":
            net.beta_inter = parse_beta(v, "beta")
        elif k in ("bw", "bandwidth"):
            net.beta_inter = 1.0 / parse_bandwidth(v, k)
        elif k == "intra-alpha":
            net.alpha_intra = parse_time(v, k)
        elif k == "intra-beta":
            net.beta_intra = parse_beta(v, k)
        elif k == "ranks-per-node":
            try:
                net.ranks_per_node = int(v)
            except ValueError:
                raise ModelError(f"--network: ranks-per-node must be an integer, got '{v}'") from None
            if net.ranks_per_node < 1:
                raise ModelError(f"--network: ranks-per-node must be >= 1, got {v}")
        else:
            raise ModelError(f"--network: unknown key '{k}' (alpha, beta, bw, ranks-per-node, intra-alpha, "
                             "intra-beta)")
    return Model(dict(model.rates), net, model.gap_closed, model.fit_report, model.theta)


def _parts(model: Model, lay: Layout) -> Tuple[Dict[str, float], Dict[str, float], Dict[str, float]]:
    """Per phase: a rank's own time; of each exchange, its CPU (shared-memory) and its
    network (between nodes) part."""
    s = sizes(lay)
    own = {p: model.rates[p] * s[p] for p in COMPUTE_PHASES}
    net = model.network
    cpu, wire = {}, {}
    for ex in EXCHANGES:
        f = exchange_features(lay, ex)
        cpu[ex] = f[0] * net.alpha_intra + f[1] * net.beta_intra
        wire[ex] = 0.0
        if f[2] > 0:
            net.check_inter()
            wire[ex] = f[2] * net.alpha_inter + f[3] * net.beta_inter
        own[ex] = cpu[ex] + wire[ex]
    return own, cpu, wire


def cpu_factor(model: Model, lay: Layout) -> float:
    return 1.0 + model.theta * (lay.oversub - 1.0)


def predict_phases(model: Model, lay: Layout) -> Dict[str, float]:
    """Seconds per forward+backward of lay.fields fields, blocking: every phase of
    timings.hpp as a rank sees it, and `cpu_wait`, the time ranks wait for the CPU when
    they outnumber the cores (0 otherwise)."""
    own, cpu, _ = _parts(model, lay)
    work = sum(own[p] for p in COMPUTE_PHASES) + sum(cpu.values())
    return {**own, "cpu_wait": (cpu_factor(model, lay) - 1.0) * work}


@dataclass
class Prediction:
    layout: Layout
    phases: Dict[str, float]
    blocking_s: float
    bound_s: float
    expected_s: Optional[float]
    data_bytes: float
    workspace_bytes: float


def predict(model: Model, lay: Layout) -> Prediction:
    """Blocking time, the pipeline bound and the expected pipelined time (with the
    measured gap closed) for lay.fields fields, forward+backward."""
    ph = predict_phases(model, lay)
    blocking = sum(ph.values())
    nv = lay.fields
    # Per field and direction (the model is symmetric in direction): C = compute + ROW,
    # T = COL; CPU work at the oversubscribed rate.
    _, cpu, wire = _parts(model, lay)
    k = cpu_factor(model, lay)
    c = (k * (sum(ph[p] for p in COMPUTE_PHASES) + cpu["row"]) + wire["row"]) / (2 * nv)
    t = (k * cpu["col"] + wire["col"]) / (2 * nv)
    bound = 2 * max(nv * c, nv * t + c)
    expected = None
    if model.gap_closed is not None:
        expected = blocking - model.gap_closed * (blocking - bound)
    s = sizes(lay)
    return Prediction(lay, ph, blocking, bound, expected, s["data_bytes"], s["workspace_bytes"])


def proc_grids(n: Sequence[int], ranks: int) -> List[Tuple[int, int]]:
    """Every process grid M1 x M2 = ranks that leaves no rank empty: slabs (1 x P) while
    P fits, pencils for every factorization."""
    out = []
    for m1 in range(1, ranks + 1):
        if ranks % m1 == 0 and fits(n, m1, ranks // m1) is None:
            out.append((m1, ranks // m1))
    return out


def best(model: Model, n: Sequence[int], ranks: int, ranks_per_node: int, fields: int = 1,
         slabs: Optional[bool] = None, key: str = "blocking_s", **kw) -> Optional[Prediction]:
    """The fastest process grid by `key` (blocking_s, bound_s); slabs=True/False restricts
    to slabs (M1 = 1) or pencils (M1 > 1). None when no grid fits."""
    cands = []
    for m1, m2 in proc_grids(n, ranks):
        if slabs is not None and (m1 == 1) != slabs:
            continue
        lay = Layout(tuple(n), m1, m2, ranks_per_node, fields, **kw)
        cands.append(predict(model, lay))
    if not cands:
        return None
    return min(cands, key=lambda p: getattr(p, key))


# ----------------------------------------------------------------------------- fitting
def nnls(A: np.ndarray, b: np.ndarray, iters: int = 200) -> np.ndarray:
    """Least squares with x >= 0 (Lawson-Hanson active set; small problems only)."""
    A, b = np.asarray(A, float), np.asarray(b, float)
    m, n = A.shape
    x = np.zeros(n)
    passive = np.zeros(n, bool)
    w = A.T @ (b - A @ x)
    for _ in range(iters):
        if passive.all() or w[~passive].max(initial=-np.inf) <= 1e-12 * max(1.0, np.abs(w).max()):
            break
        j = int(np.argmax(np.where(passive, -np.inf, w)))
        passive[j] = True
        while True:
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(A[:, passive], b, rcond=None)[0]
            if (z[passive] > 0).all():
                x = z
                break
            bad = passive & (z <= 0)
            alpha = np.min(x[bad] / (x[bad] - z[bad]))
            x = x + alpha * (z - x)
            passive &= x > 1e-15
            x[~passive] = 0.0
        w = A.T @ (b - A @ x)
    return x


def fit_quality(pred: Sequence[float], meas: Sequence[float]) -> Dict[str, float]:
    """R^2 of the predicted against the measured values, and relative residuals."""
    p, y = np.asarray(pred, float), np.asarray(meas, float)
    ss_res = float(np.sum((y - p) ** 2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    rel = (p - y) / np.where(y > 0, y, 1.0)
    return {"n": int(len(y)), "r2": (1.0 - ss_res / ss_tot) if ss_tot > 0 else float("nan"),
            "median_abs_rel": float(np.median(np.abs(rel))) if len(y) else float("nan"),
            "max_abs_rel": float(np.max(np.abs(rel))) if len(y) else float("nan")}


def _weighted_nnls(X: np.ndarray, y: np.ndarray, ref: Optional[np.ndarray] = None) -> np.ndarray:
    """Minimize the sum of squared RELATIVE residuals ((X theta - y)/ref)^2 (ref = y by
    default), theta >= 0, so the small runs count as much as the large ones."""
    w = 1.0 / (y if ref is None else ref)
    scale = np.abs(X * w[:, None]).max(axis=0)
    scale[scale == 0] = 1.0
    theta = nnls(X * w[:, None] / scale, y * w)
    return theta / scale


@dataclass
class Observation:
    """One measured blocking run, reduced to what the fit needs."""
    layout: Layout
    phases: Dict[str, float]    # seconds per iteration (fwd+bwd of all fields), median
    total_s: float
    label: str = ""
    network: str = ""           # the emulated link rate ("" = one node)


def observation_from_record(rec: Dict, setting: Dict) -> Observation:
    """An nbfft-sine JSON record (+ where it ran) -> Observation. Raises ModelError."""
    try:
        n = tuple(int(v) for v in rec["grid"])
        m1, m2 = parse_proc_grid(rec["proc_grid"])
        ph = {k: float(v["median"]) for k, v in rec["phases"].items()}
        total = float(rec["time_s"])
        rpn = int(setting["ranks_per_node"])
        cores = int(setting["cores"])
    except (KeyError, TypeError, ValueError) as e:
        raise ModelError(f"measurement record lacks a field or has a bad value ({e!r}): "
                         f"{str(rec)[:120]}") from None
    ranks = m1 * m2
    lay = Layout(n, m1, m2, rpn, int(rec.get("fields", 1)), rec.get("transform", "r2c"),
                 rec.get("precision", "double"), max(1.0, ranks / max(1, cores))).check()
    nv = f" nv{lay.fields}" if lay.fields > 1 else ""
    return Observation(lay, ph, total, f"{setting.get('where', '')} {n[0]}^3 {rec['proc_grid']}{nv}".strip(),
                       setting.get("rate", "") if setting.get("hosts", 1) > 1 else "")


def _crosses(lay: Layout) -> bool:
    return any(exchange_features(lay, ex)[2] > 0 for ex in EXCHANGES)


def fit(obs: Sequence[Observation], pipelines: Sequence[float] = ()) -> Model:
    """Fits the model to blocking observations, in four linear steps: the stage rates to
    the compute phases; alpha/beta within a node to the exchanges of runs on one node with
    a core per rank; theta to the totals of oversubscribed runs on one node; alpha/beta
    between nodes to what the CPU part leaves of the totals of runs across nodes.
    `pipelines` are measured gap-closed shares of pipelined runs (their median becomes
    Model.gap_closed)."""
    obs = list(obs)
    if not obs:
        raise ModelError("fit: no blocking runs to fit (measure some with `nbfft-model measure`)")
    rates, report = {}, {"phases": {}, "network": {}}
    for p in COMPUTE_PHASES:
        use = [o for o in obs if o.phases.get(p, 0) > 0]
        if not use:
            raise ModelError(f"fit: no run has a positive '{p}' phase time")
        x = np.array([sizes(o.layout)[p] for o in use])
        y = np.array([o.phases[p] for o in use])
        a = float(np.sum(x / y) / np.sum((x / y) ** 2))     # relative least squares, through 0
        rates[p] = a
        report["phases"][p] = fit_quality(a * x, y)
    # Shared memory: exchanges of runs on one node, a core per rank where there are such.
    def intra_rows(pick):
        X, Y = [], []
        for o in obs:
            for ex in EXCHANGES:
                f = exchange_features(o.layout, ex)
                if f[2] == 0 and f[0] > 0 and o.phases.get(ex, 0) > 0 and pick(o):
                    X.append(f[:2])
                    Y.append(o.phases[ex])
        return X, Y
    X, Y = intra_rows(lambda o: o.layout.oversub <= 1.0 and not _crosses(o.layout))
    if len(X) < 2:
        X, Y = intra_rows(lambda o: not _crosses(o.layout))
    if len(X) < 2:
        raise ModelError("fit: need at least 2 exchanges within one node (local runs on 2+ ranks)")
    X, Y = np.array(X), np.array(Y)
    ai, bi = _weighted_nnls(X, Y)
    report["network"]["intra"] = fit_quality(X @ [ai, bi], Y)
    net = Network(float(ai), float(bi))
    m = Model(rates, net, None, report)

    def cpu_work(o):
        own, cpu, _ = _parts(Model(rates, Network(float(ai), float(bi), 0.0, 0.0), None), o.layout)
        return sum(own[p] for p in COMPUTE_PHASES) + sum(cpu.values())
    # Oversubscription: T = (1 + theta (oversub - 1)) * CPU work, on one node.
    over = [o for o in obs if o.layout.oversub > 1.0 and not _crosses(o.layout)]
    if over:
        r = np.array([o.total_s / cpu_work(o) - 1.0 for o in over])
        d = np.array([o.layout.oversub - 1.0 for o in over])
        m.theta = float(np.clip(np.sum(r * d) / np.sum(d * d), 0.0, 2.0))
        report["theta"] = fit_quality([(1 + m.theta * (o.layout.oversub - 1)) * cpu_work(o) for o in over],
                                      [o.total_s for o in over])
    # Between nodes: the totals of runs that cross nodes, less their CPU work.
    cross = [o for o in obs if _crosses(o.layout)]
    links = {o.network for o in cross}
    if len(links) > 1:
        raise ModelError(f"fit: the runs between nodes come from several networks ({', '.join(sorted(links))}); "
                         "fit one network at a time")
    if cross:
        if len(cross) < 2:
            raise ModelError("fit: need at least 2 runs between nodes to fit alpha and beta (or none)")
        X = np.array([sum(exchange_features(o.layout, ex)[2:] for ex in EXCHANGES) for o in cross])
        T = np.array([o.total_s for o in cross])
        base = np.array([cpu_factor(m, o.layout) * cpu_work(o) for o in cross])
        ae, be = _weighted_nnls(X, T - base, ref=T)
        net.alpha_inter, net.beta_inter = float(ae), float(be)
        report["network"]["inter"] = fit_quality(X @ [ae, be] + base, T)
        report["network"]["inter_link"] = next(iter(links))
        report["ranks_per_node"] = max(o.layout.ranks_per_node for o in cross)
    report["total"] = fit_quality([predict(m, o.layout).blocking_s for o in obs
                                   if not _crosses(o.layout) or net.alpha_inter is not None],
                                  [o.total_s for o in obs if not _crosses(o.layout) or net.alpha_inter is not None])
    if len(pipelines):
        m.gap_closed = float(np.median(np.asarray(pipelines, float)))
        report["gap_closed_runs"] = [float(g) for g in pipelines]
    return m


def relative_errors(pred: Iterable[float], meas: Iterable[float]) -> Dict[str, object]:
    p, y = np.asarray(list(pred), float), np.asarray(list(meas), float)
    if len(y) == 0:
        raise ModelError("validate: no runs to compare")
    rel = (p - y) / y
    return {"rel": rel.tolist(), "median_abs": float(np.median(np.abs(rel))), "max_abs": float(np.max(np.abs(rel)))}
