{#- One row per element of a custom conversation's `messages` array, in array order. -#}

with

source as (

    select * from {{ source('custom', 'conversations') }}

),

unnested as (

    select
        source.source_path,
        source.record_index,
        messages.message,
        messages.message_number
    from source
    cross join
        unnest(cast(source.payload -> '$.messages[*]' as json[]))
        with ordinality as messages (message, message_number)

),

renamed as (

    select
        ----------  ids
        -- the raw record the message belongs to (ids may be missing or repeated there)
        source_path,
        record_index,

        ----------  strings
        message ->> '$.role' as role,
        message ->> '$.text' as message_text,
        -- ["<label>", ...], JSON (unnested in int_custom__intents_conformed)
        message -> '$.labels' as labels,
        -- a number, JSON (a value that is not one is kept as written in ratings.raw_value)
        message -> '$.rating' as rating,

        ----------  numerics
        -- 0-based position in the `messages` array
        cast(message_number - 1 as integer) as message_index

    from unnested

)

select * from renamed
