with

source as (

    select * from {{ source('crsarena', 'dialogues') }}

),

renamed as (

    select
        ----------  ids
        payload ->> '$."conversation ID"' as dialogue_id,
        payload ->> '$.agent.id' as agent_id,
        payload ->> '$.user.id' as user_id,

        ----------  strings
        regexp_extract(source_path, 'crs_arena_dial_([a-z]+)\.json$', 1) as environment,
        payload ->> '$.metadata.sentiment' as sentiment,
        payload ->> '$.agent.type' as agent_type,
        payload ->> '$.user.type' as user_type,
        source_path,

        ----------  numerics
        record_index,
        cast(json_array_length(payload, '$.conversation') as integer) as n_utterances,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
