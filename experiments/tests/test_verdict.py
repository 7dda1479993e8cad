"""The verdict rules (experiments/nbfft_experiments/verdict.py): an effect within the spread of
the repeated runs is no evidence, an honest measure that contradicts the seed vetoes any
"reproduced", and the docs page's verdicts are generated from the stored data. Pure Python."""
import json
import math

import pytest

from nbfft_experiments import docs
from nbfft_experiments.verdict import IN_SHAPE, NOT, REPRODUCED, Effect, grade, kind_of, regrade


def test_effect_beyond_the_spread_reproduces():
    v = grade([Effect("gain", [3.0, 4.0, 5.0], "shape", " %")])
    assert v.kind == REPRODUCED
    assert v.text().startswith("reproduced: ")


def test_effect_inside_the_spread_is_not_reproduced():
    # 32 % vs 29 % from a few runs: the median difference is +3, but one run has the order reversed.
    v = grade([Effect("thread - caller overlap", [32 - 29, 30 - 31, 33 - 28], "shape", " pts")])
    assert v.kind == NOT
    assert "within the spread" in v.reason


def test_tiny_positive_effect_with_a_larger_spread_is_not_reproduced():
    # +0.2 % median with runs on both sides of zero.
    v = grade([Effect("gain", [0.2, -1.5, 1.9], "shape", " %")])
    assert v.kind == NOT


def test_single_run_has_no_spread_and_never_reproduces():
    e = Effect("gain", [50.0], "shape")
    assert not e.holds()
    assert grade([e]).kind == NOT


def test_nan_never_holds():
    assert grade([Effect("gain", [1.0, math.nan, 2.0], "shape")]).kind == NOT


def test_contradicting_honest_measure_vetoes_reproduced():
    # Seed 000's overlap % well beyond its spread, but hidden % negative in every run.
    v = grade([Effect("overlap rise", [10, 12, 11], "shape"), Effect("overlap - 80", [5, 6, 7], "full"),
               Effect("hidden %", [-48, -30, -52], "honest", " %")])
    assert v.kind == NOT
    assert "contradicts the claim" in v.reason


def test_contradicting_honest_measure_vetoes_in_shape():
    v = grade([Effect("thread - caller overlap", [5, 6, 7], "shape"), Effect("hidden %", [-10, -2, -5], "honest")])
    assert v.kind == NOT
    assert not v.text().startswith("reproduced")


def test_honest_measure_within_its_spread_vetoes_too():
    v = grade([Effect("rise", [5, 6, 7], "shape"), Effect("hidden %", [-3, 2, 1], "honest")])
    assert v.kind == NOT


def test_full_effect_missing_gives_in_shape():
    v = grade([Effect("rise", [5, 6, 7], "shape"), Effect("peak - 80", [-10, -12, -11], "full"),
               Effect("hidden %", [5, 9, 4], "honest")])
    assert v.kind == IN_SHAPE
    assert v.text().startswith("reproduced in shape: ")


def test_not_applicable_is_not_reproduced():
    v = grade([Effect("x", [1, 2], "shape")], applies=False, why_not="needs 64 ranks")
    assert v.kind == NOT and "needs 64 ranks" in v.text()


def test_bad_effects_are_refused():
    with pytest.raises(ValueError):
        Effect("x", [1, 2], "bogus")
    with pytest.raises(ValueError):
        Effect("x", [], "shape")
    with pytest.raises(ValueError):
        grade([Effect("hidden", [1, 2], "honest")])


def test_regrade_round_trips_through_json():
    for effects in ([Effect("a", [1, 2, 3])], [Effect("a", [1, 2, 3]), Effect("h", [-1, -2, -3], "honest")],
                    [Effect("a", [1, 2, 3]), Effect("f", [-1, 1, 2], "full")]):
        v = grade(effects)
        stored = json.loads(json.dumps(v.to_json()))
        assert regrade(stored) == v.kind == kind_of(v.text())


def test_kind_of_takes_the_longest_kind():
    assert kind_of("reproduced in shape: x") == IN_SHAPE
    assert kind_of("reproduced: x") == REPRODUCED
    assert kind_of("not reproduced: x") == NOT


def _results(tmp_path, kind_effects):
    blocks = []
    for i, effects in enumerate(kind_effects):
        v = grade(effects, f"summary {i}")
        name = f"e{i}"
        blocks.append({"name": name, "seed": "000", "figure": "Fig. 1", "title": "t", "seed_reported": "s",
                       "verdict_rule": "r", "verdict": v.text(), "kind": v.kind, "graded": v.to_json(),
                       "repeats": 3, "quick": True, "mpi": "openmpi", "cluster": None, "figures": [f"{name}.png"]})
        (tmp_path / f"{name}.png").write_bytes(b"png")
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"experiments": blocks}))
    doc = tmp_path / "experiments.md"
    doc.write_text("# page\n\nhand-written\n\n" + docs.render(blocks, results, doc) + "\n\nmore hand-written\n")
    return doc, results


def test_docs_generated_from_the_data_pass_the_check(tmp_path):
    doc, results = _results(tmp_path, [[Effect("a", [1, 2, 3])], [Effect("a", [-1, 2, 3])]])
    assert docs.problems(doc, results) == []


def test_docs_retyped_verdict_fails_the_check(tmp_path):
    doc, results = _results(tmp_path, [[Effect("a", [1, 2, 3])], [Effect("a", [-1, 2, 3])]])
    doc.write_text(doc.read_text().replace("| not reproduced |", "| reproduced in shape |"))
    assert any("differ" in p for p in docs.problems(doc, results))


def test_data_whose_verdict_disagrees_with_its_effects_fails_the_check(tmp_path):
    doc, results = _results(tmp_path, [[Effect("a", [-1, 2, 3])]])
    data = json.loads(results.read_text())
    data["experiments"][0]["verdict"] = "reproduced in shape: summary 0"
    results.write_text(json.dumps(data))
    doc.write_text("# page\n\n" + docs.render(data["experiments"], results, doc) + "\n")
    assert any("effects give 'not reproduced'" in p for p in docs.problems(doc, results))


def test_the_repository_page_matches_its_data():
    """docs/experiments.md's verdicts are the ones docs/figures/results.json stores and the
    current rules give (`tools/nbfft-experiments docs --from DIR` rewrites both)."""
    assert docs.problems() == []
    assert docs.check() == 0


def test_list_and_docs_check_need_neither_matplotlib_nor_numpy():
    """A fresh clone's python3 has neither: `list` (the page's first command) and `docs --check`
    must not import them."""
    import subprocess
    import sys
    code = ("import sys; from nbfft_experiments.cli import main; rc = main(['list']); "
            "bad = [m for m in ('matplotlib', 'numpy') if m in sys.modules]; "
            "assert rc == 0 and not bad, bad")
    env = {"PYTHONPATH": str(docs.REPO / "experiments"), "PATH": "/usr/bin:/bin"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "s000_fig8" in p.stdout
