-- annotator_agreement's bootstrap interval is an interval: ci_low <= ci_high, both given or
-- both NULL, and NULL only for a measure whose every resample was undefined (n_units < 2
-- leaves only one unit to draw). A percentile interval need not contain the point estimate,
-- so that is not asserted. Seen failing in tests/integration/test_text_measures_build.py.
select
    corpus,
    subject,
    measure,
    value,
    ci_low,
    ci_high,
    n_units
from {{ ref('annotator_agreement') }}
where
    (ci_low is null) <> (ci_high is null)
    or ci_low > ci_high
    or (ci_low is null and n_units >= 2)
