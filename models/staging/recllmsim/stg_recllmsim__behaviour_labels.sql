{{ config(materialized="table") }}
{#-
    One row per RecLLMSim user-behaviour label: every top-level key whose name starts with
    "strategy" is a labelling scheme (strategy, strategy_V2, strategy_V3, strategy_1120,
    strategy_human, ...), holding one object per classification run ("1", "2", "3": three
    samples of the LLM classifier) and "final" (their ensemble, or a human's label), each an
    object of dimension -> value. New schemes and dimensions land without code changes.
    A table: the payloads are whole files.
-#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

{#- Memory: every unnest is in a select list. A lateral
    `cross join unnest(...)` is decorrelated by DuckDB into a hash join on its input, here the
    whole payload (0.7 GB peak on the real corpora; ~0.35 GB now, same rows). -#}
scheme_names as (

    select
        record_key as conversation_id,
        payload,
        {{ unnest_list(json_keys_like('payload', 'strategy%')) }} as scheme
    from source

),

schemes as (

    select
        conversation_id,
        scheme,
        {{ json_get_key('payload', 'scheme') }} as scheme_value
    from scheme_names

),

runs as (

    select
        conversation_id,
        scheme,
        {{ unnest_list(parse_json_object_entries('scheme_value')) }} as run_entry
    from schemes

),

labels as (

    select
        conversation_id,
        scheme,
        run_entry.key as run_key,
        {{ unnest_list(parse_json_object_entries('run_entry.value')) }} as label_entry
    from runs

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || scheme || '#' || run_key || '#' || label_entry.key as label_id,
        conversation_id,

        ----------  strings
        -- the top-level key, e.g. strategy_V3
        scheme,
        -- "final", or the classification run "1", "2", "3"
        run_key,
        -- e.g. information_request, question_broadness
        label_entry.key as dimension,
        -- the label as text (numbers such as question_broadness 4 become '4')
        {{ json_text('label_entry.value') }} as label_value,
        -- JSON type of the label in the file (VARCHAR, UBIGINT, ...)
        {{ json_type_of('label_entry.value') }} as label_json_type

    from labels

)

select * from renamed
