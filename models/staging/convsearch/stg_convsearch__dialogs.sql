with

source as (

    select * from {{ source('convsearch', 'dialogs') }}

),

{#- Memory: each `->>` parses the payload again and DuckDB keeps every
    parse of a 2048-row chunk until the chunk is done (17 parses per dialogue did not fit in
    1 GiB at sample x300). One from_json reads the fields (as text, so the casts below see what
    `->>` gave) and one json_array_length the number of turns; the values are the same. -#}
parsed as (

    select
        source.*,
        {{ json_struct('payload', {'id': 'VARCHAR', 'user': 'VARCHAR', 'agent': 'VARCHAR', 'topic_user': 'VARCHAR', 'intent_user': 'VARCHAR', 'improvement_user': 'VARCHAR', 'keywords': 'VARCHAR', 'satisfaction_user': 'VARCHAR', 'effort_user': 'VARCHAR', 'preference_user': 'VARCHAR', 'applicability_user': 'VARCHAR', 'understand_agent': 'VARCHAR', 'satisfaction_agent': 'VARCHAR', 'difficulty_agent': 'VARCHAR', 'start_time': 'VARCHAR', 'end_time': 'VARCHAR'}) }} as fields,
        {{ json_array_length_at('payload', '$.turns') }} as turns_length
    from source

),

renamed as (

    select
        ----------  ids
        fields.id as dialog_id,
        fields.user as user_id,
        fields.agent as agent_id,

        ----------  strings
        fields.topic_user as topic_user,
        fields.intent_user as intent_user,
        fields.improvement_user as improvement_user,
        fields.keywords as keywords,
        source_path,

        ----------  numerics (0..4 annotations)
        cast(fields.satisfaction_user as double) as satisfaction_user,
        cast(fields.effort_user as double) as effort_user,
        cast(fields.preference_user as double) as preference_user,
        cast(fields.applicability_user as double) as applicability_user,
        cast(fields.understand_agent as double) as understand_agent,
        cast(fields.satisfaction_agent as double) as satisfaction_agent,
        cast(fields.difficulty_agent as double) as difficulty_agent,
        cast(turns_length as integer) as n_turns,
        record_index,

        ----------  timestamps (upstream: float seconds since the epoch, UTC)
        {{ timestamp_from_micros("cast(cast(fields.start_time as double) * 1000000 as bigint)") }} as started_at,
        {{ timestamp_from_micros("cast(cast(fields.end_time as double) * 1000000 as bigint)") }} as ended_at,
        ingested_at

    from parsed

)

select * from renamed
