"""Rating panels the tests share: Krippendorff's (2011) published example and two real-shaped
exports (a long 0-9 study, an R write.csv of goniometer angles) whose verdict depends on the level."""

from __future__ import annotations

import random

N = None
#: Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders x 12 units example
K2011 = [
    [1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, 3, N, N],
]


def long_0_9(seed: int = 7, units: int = 40, raters: int = 3) -> bytes:
    """A long export (subject, coder, score) of 0-9 ratings, each coder within one point of the
    truth: ordinal and interval alpha high, nominal low."""
    rng = random.Random(seed)
    rows = ["subject,coder,score"]
    for u in range(units):
        t = rng.randrange(10)
        for r in range(raters):
            rows.append(f"s{u + 1},coder{r + 1},{min(9, max(0, t + rng.choice((-1, 0, 0, 1))))}")
    return ("\n".join(rows) + "\n").encode()


def goniometer(seed: int = 3, units: int = 29) -> bytes:
    """An R write.csv of angles (unnamed row-number column, quoted header), three raters within a
    degree of each other: 31 distinct whole numbers."""
    rng = random.Random(seed)
    rows = ['"","rater1","rater2","rater3"']
    for u in range(units):
        t = rng.randrange(-5, 30)
        rows.append(f'"{u + 1}",' + ",".join(str(t + rng.choice((-1, 0, 0, 1))) for _ in range(3)))
    return ("\n".join(rows) + "\n").encode()


def agreeing(agreement: float, seed: int, units: int = 200, raters: int = 3, dimension: str = "toxicity") -> bytes:
    """A long export (dimension, unit, rater, value) of 0/1 labels on one ``dimension``:
    each rater copies the unit's true label with probability ``agreement``, else guesses (half
    and half). Nominal alpha is about ``agreement`` squared; its 95% interval about 0.1 wide at 200
    units: one week of a followed panel, steady or drifting with ``agreement``."""
    rng = random.Random(seed)
    rows = ["dimension,unit,rater,value"]
    for u in range(units):
        truth = rng.random() < 0.4
        for r in range(raters):
            label = truth if rng.random() < agreement else rng.random() < 0.5
            rows.append(f"{dimension},item-{u:04d},rater-{r + 1},{int(label)}")
    return ("\n".join(rows) + "\n").encode()
