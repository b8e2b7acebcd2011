-- Unit test of macro parse_json_object_entries over literal JSON values: returns failing
-- cases (entries compared as 'key=value' lists, in document order).

with

cases as (
    select * from (
        values
            ('{"b": 1, "a": "x"}', ['b=1', 'a="x"']),
            ('{"Preference Alignment": 2, "Diversity": 0}', ['Preference Alignment=2', 'Diversity=0']),
            ('"not an object"', cast(null as varchar[])),
            ('[1, 2]', cast(null as varchar[]))
    ) as t (json_text, expected)
),

parsed as (
    select
        json_text,
        expected,
        list_transform(
            {{ parse_json_object_entries('cast(json_text as json)') }},
            lambda entry: entry.key || '=' || cast(entry.value as varchar)
        ) as actual
    from cases
)

select *
from parsed
where actual is distinct from expected
