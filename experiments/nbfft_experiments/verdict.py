"""Verdict rules, pure Python (no numpy, no matplotlib): unit-tested in experiments/tests.

Every experiment runs its measurement several times (--repeats) and reduces each claim of the
seed to Effects: one value per repeated run, signed so that a positive value is what the seed
claimed (a margin over a threshold, a difference between two transports, an honest measure
such as hidden %). An effect counts only when every repeated run shows it: its smallest value
is above zero, so the effect is larger than the run-to-run spread below its median. Then

- "reproduced"          every shape effect, every full effect and every honest effect holds;
- "reproduced in shape" every shape and honest effect holds, a full one does not;
- "not reproduced"      anything else: a shape effect that is missing, within the spread of
                        the repeated runs, or an honest measure that contradicts the claim
                        (or is within its spread), which no other number can outvote.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from statistics import median
from typing import List, Sequence

REPRODUCED = "reproduced"
IN_SHAPE = "reproduced in shape"
NOT = "not reproduced"
KINDS = (REPRODUCED, IN_SHAPE, NOT)
ROLES = ("shape", "full", "honest")


@dataclass
class Effect:
    label: str            # what the values are, e.g. "thread overlap % - best caller overlap %"
    values: List[float]   # one per repeated run; > 0 = in the direction of the seed's claim
    role: str = "shape"   # shape | full | honest
    unit: str = ""

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"Effect {self.label!r}: role must be one of {ROLES}, not {self.role!r}")
        self.values = [float(v) for v in self.values]
        if not self.values:
            raise ValueError(f"Effect {self.label!r}: no values")

    @property
    def median(self) -> float:
        return median(self.values)

    @property
    def lo(self) -> float:
        return min(self.values)

    @property
    def hi(self) -> float:
        return max(self.values)

    @property
    def spread(self) -> float:
        return self.hi - self.lo

    def holds(self) -> bool:
        """Every repeated run shows the effect (a NaN never holds). One run alone has no
        measured spread, so it never holds either."""
        return len(self.values) >= 2 and all(v == v for v in self.values) and self.lo > 0

    def contradicts(self) -> bool:
        return all(v == v for v in self.values) and self.hi < 0

    def state(self) -> str:
        if self.holds():
            return "holds"
        if self.contradicts():
            return "contradicts the claim"
        return "within the spread of the repeated runs" if len(self.values) >= 2 else "a single run (no spread)"

    def describe(self) -> str:
        u = self.unit
        return (f"{self.label} {self.median:+.3g}{u} (runs {self.lo:+.3g}{u} .. {self.hi:+.3g}{u}, "
                f"spread {self.spread:.3g}{u}, n={len(self.values)})")

    def to_json(self) -> dict:
        d = asdict(self)
        d.update(median=self.median, lo=self.lo, hi=self.hi, spread=self.spread, state=self.state())
        return d

    @staticmethod
    def from_json(d: dict) -> "Effect":
        return Effect(d["label"], d["values"], d.get("role", "shape"), d.get("unit", ""))


@dataclass
class Verdict:
    kind: str
    summary: str                       # the experiment's own sentence: what was measured
    effects: List[Effect] = field(default_factory=list)
    reason: str = ""                   # why not (better), from the rule
    applies: bool = True

    def text(self) -> str:
        """One line for data.json, verdict.md, index.md and docs/experiments.md."""
        parts = [f"{self.kind}: {self.summary}"]
        if self.reason:
            parts.append(f"Why: {self.reason}.")
        if self.effects:
            parts.append("Effects (median, range over the repeated runs): "
                         + "; ".join(f"[{e.role}] {e.describe()}" for e in self.effects) + ".")
        return " ".join(p.strip() for p in parts)

    def to_json(self) -> dict:
        return {"kind": self.kind, "summary": self.summary, "reason": self.reason, "applies": self.applies,
                "effects": [e.to_json() for e in self.effects]}


def grade(effects: Sequence[Effect], summary: str = "", applies: bool = True, why_not: str = "") -> Verdict:
    """The rule of the module docstring. `applies` False: the seed's claim cannot be tested
    here at all (why_not says why); the verdict is then 'not reproduced'."""
    effects = list(effects)
    shape = [e for e in effects if e.role == "shape"]
    full = [e for e in effects if e.role == "full"]
    honest = [e for e in effects if e.role == "honest"]
    if not applies:
        return Verdict(NOT, summary, effects, why_not, applies=False)
    if not shape and not full:
        raise ValueError("grade: a verdict needs at least one shape or full effect")
    failing = [e for e in shape + honest if not e.holds()]
    if failing:
        why = "; ".join(f"{e.label} {e.state()} ({e.median:+.3g}{e.unit}, runs {e.lo:+.3g}..{e.hi:+.3g}{e.unit})"
                        for e in failing)
        return Verdict(NOT, summary, effects, why)
    missing = [e for e in full if not e.holds()]
    if missing:
        why = "; ".join(f"{e.label} is not above 0 in every run ({e.median:+.3g}{e.unit}, runs "
                        f"{e.lo:+.3g}..{e.hi:+.3g}{e.unit})" for e in missing)
        return Verdict(IN_SHAPE, summary, effects, f"not fully: {why}")
    return Verdict(REPRODUCED, summary, effects)


def regrade(graded: dict) -> str:
    """The kind a data.json's stored effects give under the current rule ("graded" block)."""
    effects = [Effect.from_json(e) for e in graded.get("effects", [])]
    if not graded.get("applies", True) or not effects:
        return NOT
    return grade(effects).kind


def kind_of(verdict_text: str) -> str:
    """The verdict's kind from its text (the longest kind it starts with)."""
    for k in sorted(KINDS, key=len, reverse=True):
        if verdict_text.startswith(k):
            return k
    return verdict_text.split(":", 1)[0]


def per_run(values_by_run: Sequence[Sequence[float]]) -> List[List[float]]:
    """Transposes [run][point] into [point][run]."""
    return [list(x) for x in zip(*values_by_run)]
