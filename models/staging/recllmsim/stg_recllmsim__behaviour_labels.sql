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

schemes as (

    select
        source.record_key as conversation_id,
        scheme_keys.scheme,
        source.payload -> ('$."' || scheme_keys.scheme || '"') as scheme_value
    from source
    cross join unnest(json_keys(source.payload)) as scheme_keys (scheme)
    where scheme_keys.scheme like 'strategy%'

),

runs as (

    select
        schemes.conversation_id,
        schemes.scheme,
        run_entries.entry.key as run_key,
        run_entries.entry.value as run_value
    from schemes
    cross join
        unnest({{ parse_json_object_entries('schemes.scheme_value') }}) as run_entries (entry)

),

labels as (

    select
        runs.conversation_id,
        runs.scheme,
        runs.run_key,
        label_entries.entry.key as dimension,
        label_entries.entry.value as label
    from runs
    cross join
        unnest({{ parse_json_object_entries('runs.run_value') }}) as label_entries (entry)

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || scheme || '#' || run_key || '#' || dimension as label_id,
        conversation_id,

        ----------  strings
        -- the top-level key, e.g. strategy_V3
        scheme,
        -- "final", or the classification run "1", "2", "3"
        run_key,
        -- e.g. information_request, question_broadness
        dimension,
        -- the label as text (numbers such as question_broadness 4 become '4')
        label ->> '$' as label_value,
        -- JSON type of the label in the file (VARCHAR, UBIGINT, ...)
        json_type(label) as label_json_type

    from labels

)

select * from renamed
