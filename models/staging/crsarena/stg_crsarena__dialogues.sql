with

source as (

    select * from {{ source('crsarena', 'dialogues') }}

),

renamed as (

    select
        ----------  ids
        {{ json_text('payload', '$."conversation ID"') }} as dialogue_id,
        {{ json_text('payload', '$.agent.id') }} as agent_id,
        {{ json_text('payload', '$.user.id') }} as user_id,

        ----------  strings
        regexp_extract(source_path, 'crs_arena_dial_([a-z]+)\.json$', 1) as environment,
        {{ json_text('payload', '$.metadata.sentiment') }} as sentiment,
        {{ json_text('payload', '$.agent.type') }} as agent_type,
        {{ json_text('payload', '$.user.type') }} as user_type,
        source_path,

        ----------  numerics
        record_index,
        cast({{ json_array_length_at('payload', '$.conversation') }} as integer) as n_utterances,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
