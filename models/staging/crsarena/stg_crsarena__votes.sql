with

source as (

    select * from {{ source('crsarena', 'votes') }}

),

renamed as (

    select
        ----------  ids
        payload ->> '$.session_id' as session_id,
        payload ->> '$.user_id' as user_id,

        ----------  strings
        regexp_extract(source_path, 'votes_([a-z]+)\.csv$', 1) as environment,
        payload ->> '$.crs1' as crs1,
        payload ->> '$.crs2' as crs2,
        payload ->> '$.vote' as vote,
        -- an empty CSV field means no feedback was given
        nullif(payload ->> '$.feedback', '') as feedback,
        source_path,

        ----------  numerics
        record_index,

        ----------  timestamps
        -- session_id is the vote's timestamp ('YYYY-MM-DD HH:MM:SS[.ffffff]')
        try_cast(payload ->> '$.session_id' as timestamp) as voted_at,
        ingested_at

    from source

)

select * from renamed
