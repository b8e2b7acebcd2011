with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

renamed as (

    select
        ----------  ids
        payload ->> '$.id' as query_id,
        payload ->> '$.belong_dialog' as dialog_id,
        payload ->> '$.belong_turn' as turn_id,

        ----------  strings
        payload ->> '$.query_string' as query_string,
        payload ->> '$.source' as source_engine,
        source_path,

        ----------  numerics
        cast(json_array_length(payload, '$.serp_pagelogs') as integer) as n_serp_pagelogs,
        cast(json_array_length(payload, '$.landingpage_pagelogs') as integer) as n_landing_pagelogs,
        record_index,

        ----------  timestamps (upstream: float seconds since the epoch, UTC)
        make_timestamp(cast(cast(payload ->> '$.time' as double) * 1000000 as bigint)) as queried_at,
        ingested_at

    from source

)

select * from renamed
