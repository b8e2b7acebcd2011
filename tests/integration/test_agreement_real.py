"""annotator_agreement's Krippendorff alphas on the real corpora are ``krippendorff.alpha``'s:
each (corpus, aspect) and (corpus, aspect, subset) row of the mart equals, within 1e-12, the
package's ordinal alpha of the ``ratings`` mart's units with two or more raters, the
reliability data (raters x units) built here with plain SQL and Python, not by csrwh's code.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import krippendorff
import numpy as np
import pytest

pytestmark = pytest.mark.integration

#: pairable ratings: units (conversation, turn, item; NULLs matching) with two or more raters
#: (rater_kind, rater_id) in their corpus and aspect, as the mart defines them
PAIRABLE = """
select r.corpus, r.aspect, c.subset,
       (r.conversation_id, r.turn_index, r.item_id)::varchar as unit,
       (r.rater_kind, r.rater_id)::varchar as rater, r.value
from (
    select *, count(distinct (rater_kind, rater_id)) over (partition by corpus, aspect,
           conversation_id, turn_index, item_id) as n_raters
    from ratings where value is not null
) r join conversations c using (conversation_id)
where r.n_raters >= 2
"""


def _alpha(rows: list[tuple[str, str, float]]) -> float:
    units = sorted({unit for unit, _, _ in rows})
    raters = sorted({rater for _, rater, _ in rows})
    data = np.full((len(raters), len(units)), np.nan)
    at_unit = {unit: j for j, unit in enumerate(units)}
    at_rater = {rater: i for i, rater in enumerate(raters)}
    for unit, rater, value in rows:
        assert np.isnan(data[at_rater[rater], at_unit[unit]]), "one value per rater and unit"
        data[at_rater[rater], at_unit[unit]] = value
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))


def test_mart_alphas_are_the_krippendorff_package(real_warehouse: Path) -> None:
    with duckdb.connect(str(real_warehouse), read_only=True) as con:
        ratings = con.execute(PAIRABLE).fetchall()
        mart = {
            (corpus, subject): value
            for corpus, subject, value in con.execute(
                "select corpus, subject, value from annotator_agreement "
                "where measure = 'krippendorff_alpha'"
            ).fetchall()
        }
    expected: dict[tuple[str, str], float] = {}
    for corpus, aspect in sorted({(r[0], r[1]) for r in ratings}):
        of_aspect = [r for r in ratings if r[:2] == (corpus, aspect)]
        expected[corpus, f"quality:{aspect}"] = _alpha([r[3:] for r in of_aspect])
        for subset in sorted({r[2] for r in of_aspect if r[2] is not None}):
            part = [r[3:] for r in of_aspect if r[2] == subset]
            expected[corpus, f"quality:{aspect}|subset:{subset}"] = _alpha(part)
    assert len(expected) >= 12, "CoSRec's crowd ratings: four aspects, two subsets"
    assert mart.keys() == expected.keys()
    for key, value in expected.items():
        assert mart[key] == pytest.approx(value, abs=1e-12, rel=0), key
