-- The JSON helpers and global_id over literal values: returns a row for every wrong result.
with

cases as (
    select
        {{ json_type_of("json('{\"a\": 1}')") }} as object_type,
        {{ json_type_of("json('[\"x\"]')") }} as array_type,
        {{ json_text("json('\"是\"')") }} as string_value,
        {{ json_text("json('{\"memo\": \"ok\", \"n\": 2}')", '$.memo') }} as memo,
        {{ json_object_text(['k', "'v'", 'n', '2']) }} as built_object,
        cast({{ json_without_keys("json('{\"uid\": 1, \"keep\": true}')", ['uid']) }} as varchar) as trimmed,
        {{ json_to_text_array("json('[\"推荐\", \"规划\"]')") }} as labels,
        {{ json_to_array("json('[{\"a\": 1}, \"x\"]')") }} as elements,
        {{ json_to_array("json('{\"a\": 1}')") }} as not_an_array,
        {{ json_type_of(as_json("'[1, 2]'")) }} as cast_type,
        {{ global_id('cosrec', "'CoSRec-Crowd_4'") }} as conversation_id
),

aggregated as (
    select
        {{ json_object_agg_text('k', 'v', 'k') }} as mapping
    from (values ('b', json('2')), ('a', json('1')), ('c', null)) as entries (k, v)
)

select 'json helpers' as failing_case
from cases, aggregated
where not (
    object_type = 'OBJECT'
    and array_type = 'ARRAY'
    and string_value = '是'
    and memo = 'ok'
    and json(built_object) = json('{"k": "v", "n": 2}')
    and json(trimmed) = json('{"keep": true}')
    and labels = ['推荐', '规划']
    and len(elements) = 2 and json_type(elements[1]) = 'OBJECT' and elements[2] ->> '$' = 'x'
    and not_an_array is null
    and cast_type = 'ARRAY'
    and conversation_id = 'cosrec:CoSRec-Crowd_4'
    and json(mapping) = json('{"a": 1, "b": 2}')
)
