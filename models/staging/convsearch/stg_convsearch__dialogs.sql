with

source as (

    select * from {{ source('convsearch', 'dialogs') }}

),

renamed as (

    select
        ----------  ids
        payload ->> '$.id' as dialog_id,
        payload ->> '$.user' as user_id,
        payload ->> '$.agent' as agent_id,

        ----------  strings
        payload ->> '$.topic_user' as topic_user,
        payload ->> '$.intent_user' as intent_user,
        payload ->> '$.improvement_user' as improvement_user,
        payload ->> '$.keywords' as keywords,
        source_path,

        ----------  numerics (0..4 annotations)
        cast(payload ->> '$.satisfaction_user' as double) as satisfaction_user,
        cast(payload ->> '$.effort_user' as double) as effort_user,
        cast(payload ->> '$.preference_user' as double) as preference_user,
        cast(payload ->> '$.applicability_user' as double) as applicability_user,
        cast(payload ->> '$.understand_agent' as double) as understand_agent,
        cast(payload ->> '$.satisfaction_agent' as double) as satisfaction_agent,
        cast(payload ->> '$.difficulty_agent' as double) as difficulty_agent,
        cast(json_array_length(payload, '$.turns') as integer) as n_turns,
        record_index,

        ----------  timestamps (upstream: float seconds since the epoch, UTC)
        make_timestamp(cast(cast(payload ->> '$.start_time' as double) * 1000000 as bigint)) as started_at,
        make_timestamp(cast(cast(payload ->> '$.end_time' as double) * 1000000 as bigint)) as ended_at,
        ingested_at

    from source

)

select * from renamed
