"""A rater model beside a panel's verdict: Dawid-Skene (1979) over nominal ratings.

Each rater r has a confusion matrix ``confusion[r, k, l]``: the probability that it says label l
of a unit whose true label is k; the classes have priors. EM alternates the units' label
posteriors (E) and the raters' confusion matrices and the priors (M). What it gives: per rater its
confusion rows, per unit a posterior over the labels and a consensus label with its probability,
and per rater a skill (how much its labels tell) and an agreement (how often they are right), with
intervals (a rater indistinguishable from chance is named, and one informative but confused). This is a
diagnostic: it never changes a verdict.

As crowd-kit's ``DawidSkene`` (1.4) does, so that the two agree to its tolerance: EM starts from
majority vote (each unit's vote fractions as its posterior), a confusion count and a prior are
floored at ``EPS`` = 1e-10 (a confusion row then normalised over the labels the rater used), and
EM stops when
the evidence lower bound per rating rises by less than ``tol`` (or after ``max_iter`` rounds).
Nothing is random, so the fit is deterministic; the skill's bootstrap draws from a fixed seed.

**Counts, not ratings.** The model reads only the per-(unit, rater, label) counts
(:class:`RaterCounts`: four aligned arrays, one entry per triple that occurs). An out-of-core
engine can feed it: the counts are one ``GROUP BY unit, rater, label COUNT(*)``; each E step needs
only a unit's own triples and the current (raters x labels x labels) parameters, and each M step
only sums of ``count * posterior`` over the triples and of the posteriors over the units, which
add over any partition of the units. So one pass per EM round over the triples, in chunks of whole
units (sorted by unit), computes the chunk's posteriors and adds its sufficient statistics; the
parameters between rounds are small. This module holds every unit's posterior in memory.

>>> m = dawid_skene([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"], ["b", "a", "b"]])
>>> m.labels(), [round(p, 3) for p in m.label_probability.tolist()]
(['a', 'b', 'a', 'b'], [1.0, 1.0, 1.0, 1.0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from agreebound.panel.categories import Coded, Ratings, Value, encode

#: Floor of a confusion count (before normalising) and of a prior (crowd-kit's ``_EPS``): no log of zero.
EPS = 1e-10
#: The least expected count of a true label in half a rater's units for it to be decoded to.
NEGLIGIBLE_MASS = 1e-6
#: A bound this close to 0 includes it (the floors' arithmetic leaves 1e-11 where 0 is meant).
TOUCHES_ZERO = 1e-9


@dataclass(frozen=True)
class RaterCounts:
    """Per-(unit, rater, label) counts: entry i says rater ``rater[i]`` gave unit ``unit[i]`` the
    label ``label[i]`` ``count[i]`` times (usually once). Labels are codes into ``labels``; units
    and raters index ``n_units`` and ``raters``."""

    unit: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    count: np.ndarray
    n_units: int
    raters: tuple[str, ...]
    labels: tuple[Value, ...]

    def __post_init__(self) -> None:
        if not (len(self.unit) == len(self.rater) == len(self.label) == len(self.count)):
            raise ValueError("unit, rater, label and count must have one entry per triple")
        if len(self.count) and int(np.min(self.count)) < 1:
            raise ValueError("every count must be at least 1 (a triple that does not occur has no entry)")


def rater_counts(coded: Coded, raters: Sequence[str] | None = None) -> RaterCounts:
    """The triples of coded ratings (categories as the labels; nominal: their order is immaterial).

    >>> c = rater_counts(encode([["x", "y"], ["x", "x"], ["x", "x"]]))
    >>> c.unit.tolist(), c.rater.tolist(), c.label.tolist(), c.count.tolist(), c.labels
    ([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], [0, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], ('x', 'y'))
    """
    names = tuple(raters) if raters is not None else tuple(f"rater {j + 1}" for j in range(coded.n_raters))
    if len(names) != coded.n_raters:
        raise ValueError(f"{len(names)} rater names for {coded.n_raters} raters")
    k = len(coded.categories)
    key = (coded.unit.astype(np.int64) * max(coded.n_raters, 1) + coded.rater) * max(k, 1) + coded.code
    uniq, cnt = np.unique(key, return_counts=True)
    rest, label = np.divmod(uniq, max(k, 1))
    unit, rater = np.divmod(rest, max(coded.n_raters, 1))
    return RaterCounts(unit, rater, label, cnt.astype(np.int64), coded.n_units, names,
                       tuple(coded.categories.values))


@dataclass(frozen=True)
class RaterSkill:
    """One rater's skill (how much its labels tell about the truth) and agreement (how often it says
    the true label), both against the model's posterior for the same units without its own ratings
    (the fitted parameters held fixed), each with a percentile bootstrap interval (2.5% to 97.5%)
    over its units (1000 resamples by default, the same for both; the parameters are not refitted,
    so the intervals omit their uncertainty).

    **Agreement** is Cohen's kappa of its labels as said: observed = the expected share of its ratings
    the posterior agrees with; chance = sum over labels of (its share of that label) x (the
    posterior's mass on it over the same units). For a uniform spammer its interval covered 0 in 95
    of 100 planted panels of 100 units.

    **Skill** is the same kappa of its labels *decoded*: each label it says is read as the true label
    most likely to make it say it (the largest P(said | true) in the joint table of its labels and the
    others' posterior, each true label's column normalised; ties to the first label). Not the true
    label most probable given what it said (P(true | said)): with a rare class, a lenient rater whose
    "pos" is right less than half the time would decode every label to the commoner class and score
    0, though its labels tell a lot (the sample panel's detector-llm: skill 0 that way, 0.230 this
    way, equal to its agreement). A rater that swaps two classes says the wrong label but its decoded
    label is right, so its skill is high while its agreement is near 0 or below; a rater independent
    of the truth (a spammer) decodes to labels as independent of it, so its skill is about 0 (mean
    0.012, SD 0.085, over 400 planted panels of 100 units). Kappa of decoded labels rather than a mutual information or an
    accuracy gain over the priors: it is on the agreement's scale (a rater whose labels mean what
    they say has skill about equal to its agreement), and it is signed (a spammer scores below 0 as
    often as above; a plug-in information is never below 0 and is biased upwards).

    The decoding is cross-fitted: the rater's units are split at random (seeded) into two halves,
    each half's labels decoded with the other half's table, and the chance agreement taken within
    each half. Decoded with its own table a spammer's skill is biased above 0; with the chance pooled
    over the halves, below 0 (-0.025). A label the rater never says in the other half is taken at its
    word. Each bootstrap resample decodes afresh (the decoding's own uncertainty is in the interval).
    The interval is conservative at chance: for a uniform spammer it covered 0 in 100 of 100 planted
    panels of 100 units (400 of 400, at 100 and at 200 units); holding the decoding fixed made it too
    narrow (88 of 100). Indistinguishable from chance: the skill's interval includes 0.

    Systematically confused (:attr:`confused`): informative, and the skill's interval lies wholly
    above the agreement's: its labels say something, but not what they name. A lenient rater (too
    often "pos") has skill about equal to its agreement: read its confusion rows."""

    rater: str
    n_ratings: int
    observed: float  # expected share of its ratings the others' posterior agrees with
    chance: float  # the observed share expected from its own label use and the posterior's label use
    agreement: float | None  # (observed - chance) / (1 - chance): Cohen's kappa; None when chance is 1
    agreement_low: float | None
    agreement_high: float | None
    skill: float | None  # the kappa of its decoded labels; None when its chance is 1
    low: float | None  # the skill's interval
    high: float | None

    @property
    def indistinguishable_from_chance(self) -> bool:
        """The skill's interval includes 0 (or there is no interval)."""
        return self.low is None or self.high is None or self.low <= TOUCHES_ZERO <= self.high + 2 * TOUCHES_ZERO

    @property
    def confused(self) -> bool:
        """Informative (the skill's interval above 0) but its labels do not mean what they say: the
        skill's interval lies wholly above the agreement's."""
        return (not self.indistinguishable_from_chance and self.low is not None and self.agreement_high is not None
                and self.low > self.agreement_high)


@dataclass(frozen=True)
class RaterModel:
    """A fitted Dawid-Skene model. ``confusion[r, k, l]``: rater r says l when the truth is k (rows
    sum to 1 over the labels; labels r never used have 0). ``posterior[u]``: unit u's labels'
    probabilities (NaN for a unit nobody rated); ``label[u]`` the most probable (first on ties; -1
    unrated), with probability ``label_probability[u]``."""

    labels_: tuple[Value, ...]
    raters: tuple[str, ...]
    prior: np.ndarray
    confusion: np.ndarray
    posterior: np.ndarray
    label: np.ndarray
    label_probability: np.ndarray
    iterations: int
    converged: bool
    elbo: float  # evidence lower bound per rating at the end
    skills: tuple[RaterSkill, ...]

    def labels(self) -> list[Value]:
        """The consensus label of every unit (None for a unit nobody rated)."""
        return [self.labels_[int(c)] if c >= 0 else None for c in self.label]

    def chance_raters(self) -> list[str]:
        """Raters whose skill interval includes 0: indistinguishable from chance."""
        return [s.rater for s in self.skills if s.indistinguishable_from_chance]

    def confused_raters(self) -> list[str]:
        """Informative raters whose labels do not mean what they say (:attr:`RaterSkill.confused`)."""
        return [s.rater for s in self.skills if s.confused]


# --- EM -----------------------------------------------------------------------------------------


def _vote_fractions(c: RaterCounts, n_labels: int) -> np.ndarray:
    votes = np.zeros((c.n_units, n_labels))
    np.add.at(votes, (c.unit, c.label), c.count)
    total = votes.sum(axis=1, keepdims=True)
    return np.divide(votes, total, out=np.full_like(votes, np.nan), where=total > 0)


def _m_step(c: RaterCounts, post: np.ndarray, rated: np.ndarray, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """Priors (mean posterior over rated units) and confusion matrices (floored, normalised over
    the labels each rater used)."""
    n_raters = len(c.raters)
    prior = post[rated].mean(axis=0)
    stats = np.zeros((n_raters, n_labels, n_labels))  # rater, true, said
    weights = c.count[:, None] * post[c.unit]  # triple x true
    for k in range(n_labels):
        np.add.at(stats[:, k, :], (c.rater, c.label), weights[:, k])
    used = np.zeros((n_raters, n_labels), dtype=bool)
    used[c.rater, c.label] = True
    stats = np.where(used[:, None, :], np.maximum(stats, EPS), 0.0)
    confusion = stats / stats.sum(axis=2, keepdims=True)
    return prior, confusion


def _log_likelihoods(c: RaterCounts, confusion: np.ndarray, n_labels: int) -> np.ndarray:
    """Per unit and true label: sum over its triples of count * log confusion (0 where unrated)."""
    out = np.zeros((c.n_units, n_labels))
    with np.errstate(divide="ignore"):
        logs = np.log(confusion[c.rater, :, c.label])  # triple x true
    np.add.at(out, c.unit, c.count[:, None] * logs)
    return out


def _normalise(log_joint: np.ndarray) -> np.ndarray:
    scaled = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
    return scaled / scaled.sum(axis=1, keepdims=True)


def _elbo(c: RaterCounts, post: np.ndarray, rated: np.ndarray, prior: np.ndarray, confusion: np.ndarray) -> float:
    """E_q[log p(labels, truth)] + H(q), per rating (crowd-kit's loss)."""
    with np.errstate(divide="ignore"):
        logs = np.log(confusion[c.rater, :, c.label])
    q = post[c.unit]
    # crowd-kit adds the log prior once per rating (its join repeats the task per worker), as here
    joint = float(np.sum(np.where(q > 0, q * (logs + np.log(np.maximum(prior, EPS))), 0.0) * c.count[:, None]))
    floored = np.maximum(post[rated], EPS)  # crowd-kit floors the posteriors in its entropy
    entropy = -float(np.sum(floored * np.log(floored)))
    return (joint + entropy) / float(c.count.sum())


def fit(counts: RaterCounts, *, max_iter: int = 100, tol: float = 1e-5, bootstrap: int = 1000,
        seed: int = 0) -> RaterModel:
    """Dawid-Skene EM over ``counts``; skills with ``bootstrap`` resamples of the units (0: none)."""
    n_labels = len(counts.labels)
    rated = np.zeros(counts.n_units, dtype=bool)
    rated[counts.unit] = True
    post = _vote_fractions(counts, n_labels)
    prior, confusion = _m_step(counts, post, rated, n_labels)
    loss, iterations, converged = -np.inf, 0, False
    for iterations in range(1, max_iter + 1):
        with np.errstate(divide="ignore"):
            log_joint = np.log(np.maximum(prior, EPS))[None, :] + _log_likelihoods(counts, confusion, n_labels)
        post = np.full((counts.n_units, n_labels), np.nan)
        post[rated] = _normalise(log_joint[rated])
        prior, confusion = _m_step(counts, post, rated, n_labels)
        new_loss = _elbo(counts, post, rated, prior, confusion)
        if new_loss - loss < tol:
            converged, loss = True, new_loss
            break
        loss = new_loss
    label = np.full(counts.n_units, -1, dtype=np.int64)
    prob = np.full(counts.n_units, np.nan)
    if n_labels:
        label[rated] = np.argmax(post[rated], axis=1)
        prob[rated] = post[rated, label[rated]]
    skills = tuple(_skill(counts, confusion, prior, j, bootstrap, seed) for j in range(len(counts.raters)))
    return RaterModel(counts.labels, counts.raters, prior, confusion, post, label, prob, iterations, converged,
                      float(loss), skills)


def dawid_skene(ratings: Coded | Ratings, raters: Sequence[str] | None = None, *, max_iter: int = 100,
                tol: float = 1e-5, bootstrap: int = 1000, seed: int = 0) -> RaterModel:
    """Dawid-Skene over a rating matrix (units x raters, None/NaN missing) or coded ratings; the
    options are :func:`fit`'s."""
    return fit(rater_counts(encode(ratings), raters), max_iter=max_iter, tol=tol, bootstrap=bootstrap, seed=seed)


# --- skill ----------------------------------------------------------------------------------------


def _skill(c: RaterCounts, confusion: np.ndarray, prior: np.ndarray, j: int, bootstrap: int,
           seed: int) -> RaterSkill:
    """Rater j's agreement (kappa of its labels) and skill (kappa of its cross-fitted decoded labels)
    against the posterior of its units from the other raters' ratings (the fitted parameters held
    fixed), so its own labels do not agree with themselves; percentile intervals from resampling its
    units with replacement (the same resamples for both; the parameters and the decoding held fixed:
    the intervals omit their uncertainty)."""
    n_labels = len(c.labels)
    mine = c.rater == j
    others = RaterCounts(c.unit[~mine], c.rater[~mine], c.label[~mine], c.count[~mine], c.n_units, c.raters,
                         c.labels)
    with np.errstate(divide="ignore"):
        log_joint = np.log(np.maximum(prior, EPS))[None, :] + _log_likelihoods(others, confusion, n_labels)
    units, inverse = np.unique(c.unit[mine], return_inverse=True)
    n_mine = int(c.count[mine].sum())
    if not len(units):
        return RaterSkill(c.raters[j], 0, float("nan"), float("nan"), None, None, None, None, None, None)
    post = _normalise(log_joint[units])  # a unit only this rater rated: the prior
    said = np.zeros((len(units), n_labels))  # unit x its labels' counts
    np.add.at(said, (inverse, c.label[mine]), c.count[mine])
    n_u = said.sum(axis=1)

    def kappa(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = w @ n_u
        a = (w @ (said * post).sum(axis=1)) / n
        ch = ((w @ said) * (w @ (n_u[:, None] * post))).sum(axis=-1) / n**2
        with np.errstate(divide="ignore", invalid="ignore"):
            return a, ch, np.where(ch < 1, (a - ch) / (1 - ch), np.nan)

    half = np.zeros(len(units), dtype=bool)
    half[np.random.default_rng([seed, _name_seed(c.raters[j]), 1]).permutation(len(units))[: len(units) // 2]] = True
    cells = (said[:, :, None] * post[:, None, :]).reshape(len(units), -1)  # unit x (said, true)

    def skill(w: np.ndarray) -> np.ndarray:
        tables = [((w * m) @ cells).reshape(*w.shape[:-1], n_labels, n_labels) for m in (half, ~half)]
        return _decoded_kappa(tables[0], tables[1])

    ones = np.ones(len(units))
    a, ch, k = kappa(ones)
    sk = skill(ones)
    bounds: list[float | None] = [None] * 4
    if bootstrap:
        rng = np.random.default_rng([seed, _name_seed(c.raters[j])])
        draws = rng.multinomial(len(units), np.full(len(units), 1 / len(units)), size=bootstrap).astype(float)
        for i, (point, ks) in enumerate(((k, kappa(draws)[2]), (sk, skill(draws)))):
            ks = ks[np.isfinite(ks)]
            if np.isfinite(point) and len(ks):
                bounds[2 * i], bounds[2 * i + 1] = (float(v) for v in np.quantile(ks, [0.025, 0.975]))
    return RaterSkill(c.raters[j], n_mine, float(a), float(ch), float(k) if np.isfinite(k) else None, bounds[0],
                      bounds[1], float(sk) if np.isfinite(sk) else None, bounds[2], bounds[3])


def _name_seed(name: str) -> int:
    """A rater's own random stream, from its name (not its column): the same rater gets the same
    halves and resamples whatever the columns' order."""
    import hashlib

    return int.from_bytes(hashlib.sha256(str(name).encode("utf-8", "surrogatepass")).digest()[:8], "little")


def _decoded_kappa(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Kappa of a rater's decoded labels from the joint tables ``[..., said, true]`` (its ratings x
    the posterior) of two halves of its units: each half's labels decoded with the other half's
    table (said l read as the true label k with the largest P(l | k), the table's column k
    normalised, ties to the first; a label
    the other half never has stays l), the chance agreement within each half (the decoding of one
    half leans on the other's label mass, so a pooled chance is biased upwards).

    >>> swap = np.array([[0.0, 3.0], [2.0, 0.0]])  # says a when the truth is b, b when it is a
    >>> float(_decoded_kappa(swap, swap)), float(_decoded_kappa(swap[::-1], swap[::-1]))  # swap, honest
    (1.0, 1.0)
    """
    n_labels = first.shape[-1]
    eye = np.eye(n_labels)
    observed = chance = total = np.zeros(first.shape[:-2])
    for fit_on, apply_to in ((first, second), (second, first)):
        used = fit_on.sum(axis=-1) > 0
        # each said label read as the true label most likely to produce it: the largest entry of its row
        # in the table's columns normalised (P(said | true)), not in the joint (P(true | said)), which reads
        # every label of a lenient rater as the commoner class when less than half its positives are right
        mass_true = fit_on.sum(axis=-2, keepdims=True)  # [..., 1, true]
        # a true label with no real mass in that half (only the posteriors' 1e-10 floors) is no candidate:
        # normalised, its column's noise would read as certainty and a perfect rater decode wrongly
        with np.errstate(divide="ignore", invalid="ignore"):
            likelihood = np.where(mass_true > NEGLIGIBLE_MASS, fit_on / mass_true, 0.0)
        to = np.where(used, np.argmax(likelihood, axis=-1), np.arange(n_labels))  # [..., said] -> true
        onto = eye[to]  # [..., said, decoded]
        said_n = apply_to.sum(axis=-1)  # [..., said]
        n = said_n.sum(axis=-1)
        observed = observed + (apply_to * onto).sum(axis=(-2, -1))
        mass = apply_to.sum(axis=-2)  # [..., true]
        decoded_n = (said_n[..., :, None] * onto).sum(axis=-2)  # [..., decoded]
        with np.errstate(divide="ignore", invalid="ignore"):
            chance = chance + np.where(n > 0, (decoded_n * mass).sum(axis=-1) / n, 0.0)
        total = total + n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(chance < total, (observed - chance) / (total - chance), np.nan)
