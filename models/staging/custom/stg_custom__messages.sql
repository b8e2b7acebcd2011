{{ config(materialized="table") }}
{#-
    One row per element of a custom conversation's `messages` array, in array order, with the
    element of the same position of `turn_annotations` (as `csrwh export` writes it) when the
    record has one. A table, and one parse of each payload (by one from_json that keeps only
    the messages and annotations), unnested in the select list: a lateral
    `cross join unnest(...)` over the payload is decorrelated into a hash join on the whole
    payload (the RecLLMSim and ConvSearch staging read their payloads the same way).
-#}

with

source as (

    -- in eight slices: each parse below holds an eighth of a chunk of lines (macros/in_slices.sql)
    select * from {{ in_slices(source('custom', 'conversations'), 'record_key') }}

),

{{ custom_message_fields('source') }}

select * from renamed
