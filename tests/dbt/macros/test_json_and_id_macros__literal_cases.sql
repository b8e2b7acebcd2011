-- The JSON helpers and global_id over literal values: returns a row for every wrong result.
-- Written with the engine macros (as_json, array_size, array_at, list_join) so it runs on
-- DuckDB and Spark; JSON values are compared as the minified text both engines write, a
-- string value read from a document (on Spark a JSON string is its text, without quotes).
with

cases as (
    select
        {{ json_type_of(as_json("'{\"a\": 1}'")) }} as object_type,
        {{ json_type_of(as_json("'[\"x\"]'")) }} as array_type,
        {{ json_text(json_get(as_json("'{\"s\": \"是\"}'"), '$.s')) }} as string_value,
        {{ json_text(as_json("'{\"memo\": \"ok\", \"n\": 2}'"), '$.memo') }} as memo,
        {{ json_object_text(['k', "'v'", 'n', '2']) }} as built_object,
        cast({{ json_without_keys(as_json("'{\"uid\": 1, \"keep\": true}'"), ['uid']) }} as string) as trimmed,
        {{ json_to_text_array(as_json("'[\"推荐\", \"规划\"]'")) }} as labels,
        {{ json_to_array(as_json("'[{\"a\": 1}, \"x\"]'")) }} as elements,
        {{ json_to_array(as_json("'{\"a\": 1}'")) }} as not_an_array,
        {{ json_type_of(as_json("'[1, 2]'")) }} as cast_type,
        {{ global_id('cosrec', "'CoSRec-Crowd_4'") }} as conversation_id
),

aggregated as (
    select
        {{ json_object_agg_text('k', 'v', 'k') }} as mapping
    from (
        values ('b', {{ as_json("'2'") }}), ('a', {{ as_json("'1'") }}), ('c', null)
    ) as entries (k, v)
)

select 'json helpers' as failing_case
from cases, aggregated
where not (
    object_type = 'OBJECT'
    and array_type = 'ARRAY'
    and string_value = '是'
    and memo = 'ok'
    and built_object = '{"k":"v","n":2}'
    and trimmed = '{"keep":true}'
    and {{ array_size('labels') }} = 2
    and {{ list_join('labels', "'|'") }} = '推荐|规划'
    and {{ array_size('elements') }} = 2
    and {{ json_type_of(array_at('elements', 1)) }} = 'OBJECT'
    and {{ json_text(array_at('elements', 2)) }} = 'x'
    and not_an_array is null
    and cast_type = 'ARRAY'
    and conversation_id = 'cosrec:CoSRec-Crowd_4'
    and cast(mapping as string) = '{"a":1,"b":2}'
)
