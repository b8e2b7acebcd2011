-- Unit test of macro cosrec_keyed_value over literal one-key lines: returns failing cases.
-- The value is compared as json_text gives it (a string without its quotes), the form both
-- engines share (on Spark a JSON string value is its text, macros/engine/json_text.sql).

with

cases as (
    select * from (
        values
            ('{"CoSRec-Crowd_4": "U: hi\nS: hello"}', 'U: hi' || chr(10) || 'S: hello'),
            ('{"CoSRec-Crowd_1": [1, 2]}', '[1,2]'),
            ('{"id with \"quotes\"": {"a": 1}}', '{"a":1}')
    ) as t (payload, expected)
)

select
    payload,
    expected,
    {{ json_text(cosrec_keyed_value(as_json('payload'))) }} as actual
from cases
where {{ json_text(cosrec_keyed_value(as_json('payload'))) }} is distinct from expected
