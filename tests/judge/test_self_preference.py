"""The self-preference net of strength (agreebound.judge.self_preference): a judge without
self-preference reads about 0 whatever its candidates' strength (the placebo: the same verdicts
relabelled as each candidate's judge in turn), a planted self-preference is detected, and the 95%
interval covers the true value in simulated audits (tests/support/strength.py's arena)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from agreebound.judge.frames import measure_frames
from agreebound.judge.self_preference import fit_self_preference
from tests.support.strength import MODELS, Arena, arena_cells, arena_frames

BIG = 3_000  # cases: about MT-Bench's 3,355 human votes


def test_the_placebo_reads_about_zero_for_every_relabel_where_the_raw_difference_measures_strength():
    """GPT-4-like verdicts with no self-preference, relabelled as the judge of each model in turn
    (only the name changes): the net stays within 2.5 points of 0 on average over 12 audits for
    every relabel, its interval holds 0 in most, while the raw difference P(judge picks own) -
    P(humans pick own) orders the relabels by strength (the issue's +14.4 for gpt-3.5-turbo and
    -12.6 for llama on the real MT-Bench data)."""
    rng = np.random.default_rng(2023)
    audits = [arena_cells(rng, BIG) for _ in range(12)]
    raw, net, holds = {}, {}, {}
    for model in MODELS:
        fits = [fit_self_preference(cells, model) for cells in audits]
        assert not any(isinstance(f, str) for f in fits)
        raw[model] = np.mean([float(f.raw_difference) for f in fits])
        net[model] = np.mean([float(f.net) for f in fits])
        holds[model] = sum(f.low <= 0 <= f.high for f in fits)
    assert all(abs(v) < 0.025 for v in net.values()), net
    assert all(h >= 10 for h in holds.values()), holds
    # the raw difference measures strength: strongest most positive, weakest most negative
    assert raw["gpt-4"] > 0.06 and raw["llama-13b"] < -0.06
    assert [m for m, _ in sorted(raw.items(), key=lambda kv: -kv[1])][:2] == ["gpt-4", "claude-v1"]


@pytest.mark.parametrize("favoured", ["gpt-4", "gpt-3.5-turbo", "llama-13b"])
def test_a_planted_self_preference_is_detected_whatever_the_judges_strength(favoured):
    """A judge that switches 30% of its verdicts against its own candidate to its own: the net's
    interval excludes 0 in at least 8 of 10 audits of 3,000 cases, the strongest model's included
    (where the judge already picks its own candidate in most verdicts, so fewer can switch: when
    written, a mean of 10.4 points for gpt-4, 12.7 for gpt-3.5-turbo, 23.2 for llama-13b)."""
    rng = np.random.default_rng(7)
    arena = Arena(favoured=favoured, self_preference=0.3)
    fits = [fit_self_preference(arena_cells(rng, BIG, arena), favoured) for _ in range(10)]
    assert sum(f.low > 0 for f in fits) >= 8
    assert 0.05 < np.mean([float(f.net) for f in fits]) < 0.3


def test_the_pipeline_end_to_end_placebo_and_planted():
    """Through the seed's frames: the same verdicts judged by "claude-v1" (no self-preference) read
    indistinguishable from none; with a planted self-preference for claude-v1 they read a bias, and
    the sentence names its assumption."""
    def net(arena: Arena, seed: int):
        contract, refs, obs, header = arena_frames(np.random.default_rng(seed), 1_500, arena, "claude-v1")
        m = measure_frames(contract, refs, obs, scope=header["scope"], contract_content_id=header["contract_content_id"],
                           rubric_digest=header["rubric_digest"])
        return m.bias["self_preference_net"], m.bias["self_error_excess"]

    clean, excess = net(Arena(), 11)
    assert clean.includes_zero and abs(float(clean.exact)) < 0.05
    assert "indistinguishable from none" in clean.sentence
    assert "It assumes the judge scales the humans' preference for its own candidate as it scales theirs" in clean.sentence
    assert clean.method.startswith("the wider of the cluster bootstrap's percentile interval")
    assert excess.exact is not None and excess.exact > Fraction(1, 20)  # the old net flags this clean judge
    planted, _ = net(Arena(favoured="claude-v1", self_preference=0.3), 11)
    assert planted.low is not None and planted.low > 0
    assert "a self-preference bias beyond the candidates' strength and general disagreement" in planted.sentence


COVERAGE = [("six models, 300 cases, gpt-4", Arena(), 300, "gpt-4"),
            ("six models, 300 cases, llama", Arena(), 300, "llama-13b"),
            ("three models, 120 cases, the strongest", Arena(models=("strong", "judge", "weak"),
                                                             strength=(1.0, 0.0, -1.0)), 120, "strong"),
            ("three models, 60 cases, the middle", Arena(models=("strong", "judge", "weak"),
                                                         strength=(1.0, 0.0, -1.0)), 60, "judge")]


@pytest.mark.parametrize("name,arena,n,judge", COVERAGE, ids=[c[0] for c in COVERAGE])
def test_the_interval_covers_zero_for_a_judge_without_self_preference(name, arena, n, judge):
    """120 audits a cell: a 95% interval covers 0 (the true value: no self-preference) in at least
    92% of them. When written: 6 models at 300 cases 95.3% (gpt-4) and 97.3% (llama), 3 models
    96.7% at 120 cases and 99.3% at 60 (the interval is the wider of two, conservative where both
    hold; neither alone held 92% in every cell: the bootstrap's percentile 86% at 300 cases with 6
    models, the jackknife's 77-82% with 3)."""
    rng = np.random.default_rng(sum(map(ord, name)))
    fits = [fit_self_preference(arena_cells(rng, n, arena), judge) for _ in range(120)]
    measured = [f for f in fits if not isinstance(f, str) and f.low is not None]
    covered = sum(f.low <= 0 <= f.high for f in measured)
    assert len(measured) >= 110 and covered >= 0.92 * len(measured), (covered, len(measured))
