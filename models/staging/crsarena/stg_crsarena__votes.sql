with

source as (

    select * from {{ source('crsarena', 'votes') }}

),

renamed as (

    select
        ----------  ids
        {{ json_text('payload', '$.session_id') }} as session_id,
        {{ json_text('payload', '$.user_id') }} as user_id,

        ----------  strings
        regexp_extract(source_path, 'votes_([a-z]+)\.csv$', 1) as environment,
        {{ json_text('payload', '$.crs1') }} as crs1,
        {{ json_text('payload', '$.crs2') }} as crs2,
        {{ json_text('payload', '$.vote') }} as vote,
        -- an empty CSV field means no feedback was given
        nullif({{ json_text('payload', '$.feedback') }}, '') as feedback,
        source_path,

        ----------  numerics
        record_index,

        ----------  timestamps
        -- session_id is the vote's timestamp ('YYYY-MM-DD HH:MM:SS[.ffffff]')
        try_cast({{ json_text('payload', '$.session_id') }} as timestamp) as voted_at,
        ingested_at

    from source

)

select * from renamed
