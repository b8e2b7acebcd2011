-- Unit test of macro cosrec_keyed_value over literal one-key lines: returns failing cases.

with

cases as (
    select * from (
        values
            ('{"CoSRec-Crowd_4": "U: hi\nS: hello"}', '"U: hi\nS: hello"'),
            ('{"CoSRec-Crowd_1": [1, 2]}', '[1,2]'),
            ('{"id with \"quotes\"": {"a": 1}}', '{"a":1}')
    ) as t (payload, expected)
)

select
    payload,
    expected,
    cast({{ cosrec_keyed_value('cast(payload as json)') }} as varchar) as actual
from cases
where cast({{ cosrec_keyed_value('cast(payload as json)') }} as varchar) is distinct from expected
