"""Oracle for the report's ``annotator_agreement`` table (every corpus), see __init__.

Recomputed from plain rows of ``intents``, ``ratings`` and ``conversations`` in Python, not
through ``csrwh.measures.stats`` or the mart's model:

* Fleiss' kappa from per-turn category counts: the share of agreeing ordered annotator pairs
  per turn, category shares over all labels; a label row counts, per turn, the annotators
  whose label set holds the label and those whose set does not.
* Krippendorff's alpha (ordinal) from its pairwise form: the observed disagreement sums
  delta^2 over the ordered pairs of values within each unit (weighted 1 / (m_u - 1)), the
  expected one over all pairs of pairable values, delta^2 of two ranks being
  (n_c + ... + n_k - (n_c + n_k) / 2)^2 over the values' frequencies.
* The bootstrap: resample s draws the unit indices ``numpy.random.default_rng(seed)
  .integers(0, N, N)`` (the definition of the seeded resampling the mart documents), units
  in (conversation_id, turn_index, item_id) order; the coefficient is recomputed from the
  per-unit statistics weighted by how often each unit was drawn, undefined resamples dropped,
  and the 2.5th and 97.5th percentiles taken by linear interpolation between closest ranks.

The number of resamples and the seed are read from the mart's yml (the dbt vars' defaults).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np

from csrwh.config import PROJECT_ROOT
from report_oracle.common import Rows, rows

MODELS_YML = PROJECT_ROOT / "models" / "marts" / "reports" / "_reports__models.yml"


def bootstrap_settings() -> tuple[int, int]:
    """(resamples, seed): the defaults of the dbt vars in the mart's yml."""
    text = MODELS_YML.read_text(encoding="utf-8")
    samples = re.search(r"var\('agreement_bootstrap_samples', (\d+)\)", text)
    seed = re.search(r"var\('agreement_bootstrap_seed', (\d+)\)", text)
    return int(samples.group(1)), int(seed.group(1))


def _percentile(values: list[float], p: float) -> float:
    data = sorted(values)
    pos = (len(data) - 1) * p
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def _interval(replicates: list[float]) -> tuple[float | None, float | None]:
    valid = [r for r in replicates if r is not None and not math.isnan(r)]
    if not valid:
        return None, None
    return _percentile(valid, 0.025), _percentile(valid, 0.975)


def _draws(n_units: int, samples: int, seed: int) -> np.ndarray:
    """How often each unit is drawn in each resample, shape (samples, units)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((samples, n_units))
    for s in range(samples):
        for index in rng.integers(0, n_units, size=n_units):
            out[s, index] += 1
    return out


# --------------------------------------------------------------------------- kappa


def _kappa_of(
    weights: np.ndarray, agreement: np.ndarray, sizes: np.ndarray, counts: np.ndarray
) -> list:
    """Kappa for each row of unit weights: the weighted mean of the per-unit agreement,
    against the squared shares of the categories among the weighted labels."""
    out = []
    for w in np.atleast_2d(weights):
        shares = (w @ counts) / (w @ sizes)
        expected = float(sum(share * share for share in shares))
        if abs(expected - 1.0) <= 1e-8 + 1e-5:  # numpy.isclose(expected, 1): all in one category
            out.append(None)
            continue
        out.append((float(w @ agreement) / float(w.sum()) - expected) / (1 - expected))
    return out


def _kappa_row(corpus: str, subject: str, units: list[Counter], draws: np.ndarray) -> dict | None:
    """``units``: per turn, category -> annotators."""
    if not units:
        return None
    categories = sorted({c for u in units for c in u})
    counts = np.array([[u[c] for c in categories] for u in units], dtype=float)
    sizes = np.array([sum(u.values()) for u in units], dtype=float)
    # the share of ordered annotator pairs of the turn that agree
    agreement = np.array(
        [sum(c * (c - 1) for c in u.values()) / (n * (n - 1)) for u, n in zip(units, sizes)]
    )
    value = _kappa_of(np.ones(len(units)), agreement, sizes, counts)[0]
    if value is None:
        return None
    low, high = _interval(_kappa_of(draws, agreement, sizes, counts))
    return {
        "corpus": corpus,
        "subject": subject,
        "measure": "fleiss_kappa",
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "n_units": len(units),
        "n_raters_mean": float(sizes.mean()),
        "n_ratings": int(sizes.sum()),
    }


def _intent_rows(con, subset_of: dict[str, str], samples: int, seed: int) -> Rows:
    labels: dict[tuple, dict[tuple, dict[str, set]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(set))
    )
    for r in rows(
        con,
        """select corpus, label_scheme, conversation_id, turn_index, annotator, raw_label
                           from intents where source = 'human' and is_primary""",
    ):
        if r["raw_label"] is None or r["annotator"] is None or r["turn_index"] is None:
            continue
        key = (r["corpus"], r["label_scheme"])
        labels[key][(r["conversation_id"], r["turn_index"])][r["annotator"]].add(r["raw_label"])
    out = []
    for (corpus, scheme), turns in sorted(labels.items()):
        subject = f"intent:{scheme}"
        kept = sorted(
            (unit, by_annotator) for unit, by_annotator in turns.items() if len(by_annotator) >= 2
        )

        def units_of(pairs) -> list[Counter]:
            return [Counter("+".join(sorted(s)) for s in by.values()) for _, by in pairs]

        units = units_of(kept)
        draws = _draws(len(units), samples, seed) if units else None
        row = _kappa_row(corpus, subject, units, draws) if units else None
        if row is None:
            continue
        out.append(row)
        for subset in sorted({subset_of.get(unit[0]) for unit, _ in kept} - {None}):
            sub_units = units_of([(u, by) for u, by in kept if subset_of.get(u[0]) == subset])
            out.append(
                _kappa_row(
                    corpus,
                    f"{subject}|subset:{subset}",
                    sub_units,
                    _draws(len(sub_units), samples, seed),
                )
            )
        for label in sorted({lab for _, by in kept for s in by.values() for lab in s}):
            binary = [Counter("yes" if label in s else "no" for s in by.values()) for _, by in kept]
            out.append(_kappa_row(corpus, f"{subject}|label:{label}", binary, draws))
    return [r for r in out if r is not None]


# --------------------------------------------------------------------------- alpha


def _alpha_of(
    weights: np.ndarray, values: list[float], pairs: np.ndarray, frequencies: np.ndarray
) -> list:
    """Ordinal alpha for each row of unit weights. ``pairs[u, c, k]``: ordered pairs of unit u's
    values (c, k) from different raters, divided by m_u - 1; ``frequencies[u, c]``: how often
    value c occurs in unit u."""
    out = []
    size = len(values)
    for w in np.atleast_2d(weights):
        n_c = w @ frequencies
        n = float(n_c.sum())
        within = np.tensordot(w, pairs, axes=1)
        delta2 = [[0.0] * size for _ in range(size)]
        for c in range(size):
            for k in range(size):
                lo, hi = min(c, k), max(c, k)
                delta2[c][k] = (float(n_c[lo : hi + 1].sum()) - (n_c[c] + n_c[k]) / 2) ** 2
        observed = sum(within[c, k] * delta2[c][k] for c in range(size) for k in range(size))
        expected = sum(n_c[c] * n_c[k] * delta2[c][k] for c in range(size) for k in range(size))
        out.append(None if expected == 0 else 1 - (n - 1) * observed / expected)
    return out


def _alpha_row(
    corpus: str, subject: str, units: list[list[float]], samples: int, seed: int
) -> dict | None:
    """``units``: per unit with >= 2 raters, its values."""
    if not units:
        return None
    values = sorted({v for u in units for v in u})
    index = {v: i for i, v in enumerate(values)}
    pairs = np.zeros((len(units), len(values), len(values)))
    frequencies = np.zeros((len(units), len(values)))
    for u, unit in enumerate(units):
        for i, a in enumerate(unit):
            frequencies[u, index[a]] += 1
            for j, b in enumerate(unit):
                if i != j:
                    pairs[u, index[a], index[b]] += 1 / (len(unit) - 1)
    value = _alpha_of(np.ones(len(units)), values, pairs, frequencies)[0]
    if value is None:
        return None
    low, high = _interval(_alpha_of(_draws(len(units), samples, seed), values, pairs, frequencies))
    sizes = [len(u) for u in units]
    return {
        "corpus": corpus,
        "subject": subject,
        "measure": "krippendorff_alpha",
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "n_units": len(units),
        "n_raters_mean": sum(sizes) / len(sizes),
        "n_ratings": sum(sizes),
    }


def _unit_order(unit: tuple) -> tuple:
    """(conversation_id, turn_index, item_id), NULLs first."""
    return tuple((value is not None, value if value is not None else 0) for value in unit)


def _rating_rows(con, subset_of: dict[str, str], samples: int, seed: int) -> Rows:
    values: dict[tuple, dict[tuple, dict[tuple, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows(
        con,
        """select corpus, aspect, conversation_id, turn_index, item_id, rater_kind, rater_id, value
                           from ratings where value is not null""",
    ):
        unit = (r["conversation_id"], r["turn_index"], r["item_id"])
        values[(r["corpus"], r["aspect"])][unit][(r["rater_kind"], r["rater_id"])] = float(
            r["value"]
        )
    out = []
    for (corpus, aspect), units in sorted(values.items()):
        subject = f"quality:{aspect}"
        kept = sorted(
            ((u, list(by.values())) for u, by in units.items() if len(by) >= 2),
            key=lambda pair: _unit_order(pair[0]),
        )
        row = _alpha_row(corpus, subject, [v for _, v in kept], samples, seed)
        if row is None:
            continue
        out.append(row)
        for subset in sorted({subset_of.get(u[0]) for u, _ in kept} - {None}):
            part = [v for u, v in kept if subset_of.get(u[0]) == subset]
            out.append(_alpha_row(corpus, f"{subject}|subset:{subset}", part, samples, seed))
    return [r for r in out if r is not None]


# --------------------------------------------------------------------------- the table


def expected_annotator_agreement(con) -> Rows:
    """The report's table: the mart's rows with the subject split into subject, scope, subset
    and label."""
    samples, seed = bootstrap_settings()
    subset_of = {
        r["conversation_id"]: r["subset"]
        for r in rows(con, "select conversation_id, subset from conversations")
    }
    out = []
    for r in _intent_rows(con, subset_of, samples, seed) + _rating_rows(
        con, subset_of, samples, seed
    ):
        subject, _, scope = r["subject"].partition("|")
        kind, _, value = scope.partition(":")
        out.append(
            {
                **r,
                "subject": subject,
                "scope": kind or "corpus",
                "subset": value if kind == "subset" else None,
                "label": value if kind == "label" else None,
            }
        )
    return out


COLUMNS = [
    "corpus",
    "subject",
    "scope",
    "subset",
    "label",
    "measure",
    "value",
    "ci_low",
    "ci_high",
    "n_units",
    "n_raters_mean",
    "n_ratings",
]
KEYS = ["corpus", "subject", "scope", "subset", "label", "measure"]
