"""The spread of a score and the latency rows that measure a warm system.

- `interval(scores)`: a 95 % interval for a mean score. Scores that are all 0 or 1 are a
  proportion: Wilson's score interval, which stays inside [0, 1] and is honest for small n
  and for 0/n or n/n. Partial credit (0.5 for the right chromosome, recall of a list):
  a percentile bootstrap with a fixed seed, so a report rebuilt from the same rows shows
  the same interval.
- `timed_rows(rows)`: the rows whose latency describes a warm system. The harness marks
  the first question a configuration answers in a process as `warmup` (it loads the
  model, the stores and the index); those are left out and counted.
"""

from __future__ import annotations

import math
import random
from typing import Any

FEW_QUESTIONS = 20  # below this per task, a report warns that its intervals are wide
Z95 = 1.959964
BOOTSTRAP_RESAMPLES = 2000


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 0.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap(scores: list[float], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> tuple[float, float]:
    if not scores:
        return 0.0, 0.0
    rng = random.Random(seed)
    n = len(scores)
    means = sorted(sum(rng.choices(scores, k=n)) / n for _ in range(resamples))
    return means[int(0.025 * (resamples - 1))], means[int(math.ceil(0.975 * (resamples - 1)))]


def interval(scores: list[float]) -> tuple[float, float, str]:
    """(low, high, method) of the 95 % interval of the mean of `scores`; method "" for none."""
    if not scores:
        return 0.0, 0.0, ""
    if all(s in (0, 1) for s in scores):
        low, high = wilson(int(sum(scores)), len(scores))
        return low, high, "wilson"
    low, high = bootstrap([float(s) for s in scores])
    return low, high, "bootstrap"


def timed_rows(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """(rows without warm-up questions, how many were left out); all rows when every one is
    a warm-up (a one-question run still reports its latency, and says none was excluded)."""
    warm = [r for r in rows if not r.get("warmup")]
    if not warm:
        return list(rows), 0
    return warm, len(rows) - len(warm)
