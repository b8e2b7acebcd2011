{{ config(materialized="table") }}
{#- A table, not a view: RecLLMSim payloads are whole files (~48 MB of JSON); unnesting them once keeps every downstream model and test from re-parsing them. -#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

{#- The rating object is extracted once and its entries unnested in the select list: a lateral
    `cross join unnest(...)` over the payload becomes a hash join on the whole payload in
    DuckDB (0.6 GB peak on the real corpora; ~0.2 GB now, same rows). -#}
rated as (

    select
        record_key as conversation_id,
        {{ json_get('payload', '$.rating') }} as rating_object
    from source

),

unnested as (

    select
        conversation_id,
        {{ unnest_list(parse_json_object_entries('rating_object')) }} as aspect_rating
    from rated

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || aspect_rating.key as rating_id,
        conversation_id,

        ----------  strings
        -- one of seven aspects, e.g. "Preference Alignment"
        aspect_rating.key as aspect,

        ----------  numerics
        -- 0..2
        cast({{ json_text('aspect_rating.value') }} as double) as rating_value

    from unnested

)

select * from renamed
