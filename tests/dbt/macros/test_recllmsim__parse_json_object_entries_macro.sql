-- Unit test of macro parse_json_object_entries over literal JSON values: returns failing
-- cases (entries compared as 'key=value' texts joined by '|', in document order; a value as
-- json_text gives it, the form both engines share).

with

cases as (
    select * from (
        values
            ('{"b": 1, "a": "x"}', 'b=1|a=x'),
            ('{"Preference Alignment": 2, "Diversity": 0}', 'Preference Alignment=2|Diversity=0'),
            ('"not an object"', cast(null as string)),
            ('[1, 2]', cast(null as string))
    ) as t (document, expected)
),

parsed as (
    select
        document,
        expected,
        {{ list_join(
            list_transform(
                parse_json_object_entries(as_json('document')),
                'entry',
                "entry.key || '=' || " ~ json_text('entry.value')
            ),
            "'|'"
        ) }} as actual
    from cases
)

select *
from parsed
where actual is distinct from expected
