"""The experiment registry: one Experiment per seed figure or table."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List


@dataclass
class Experiment:
    name: str
    seed: str            # "000" .. "003"
    figure: str          # "Table I", "Fig. 6", ...
    title: str
    seed_reported: str   # what the seed reported, with its numbers
    verdict_rule: str    # how the verdict is computed from our measurement
    run: Callable        # run(ctx) -> (data: dict, verdict: str); draws with ctx.figure()
    weight: float = 1.0  # relative cost in quick mode, for the ETA
    min_ranks: int = 2


REGISTRY: Dict[str, Experiment] = {}


def experiment(**kw):
    def wrap(fn):
        e = Experiment(run=fn, **kw)
        if e.name in REGISTRY:
            raise ValueError(f"experiment {e.name} registered twice")
        REGISTRY[e.name] = e
        return fn
    return wrap


def all_experiments() -> List[Experiment]:
    # Importing the modules fills the registry, in seed order.
    from nbfft_experiments import seed000, seed001, seed002, seed003, timeline  # noqa: F401
    return list(REGISTRY.values())
