{{ config(materialized="table") }}
{#- A table, not a view: RecLLMSim payloads are whole files (~48 MB of JSON); unnesting them once keeps every downstream model and test from re-parsing them. -#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

unnested as (

    select
        source.record_key as conversation_id,
        aspect_ratings.entry.key as aspect,
        aspect_ratings.entry.value as rating
    from source
    cross join
        unnest({{ parse_json_object_entries("source.payload -> '$.rating'") }})
        as aspect_ratings (entry)

),

renamed as (

    select
        ----------  ids
        conversation_id || '#' || aspect as rating_id,
        conversation_id,

        ----------  strings
        -- one of seven aspects, e.g. "Preference Alignment"
        aspect,

        ----------  numerics
        -- 0..2
        cast(rating ->> '$' as double) as rating_value

    from unnested

)

select * from renamed
