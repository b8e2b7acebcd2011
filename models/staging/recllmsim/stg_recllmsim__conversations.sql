{{ config(materialized="table") }}
{#- A table, not a view: RecLLMSim payloads are whole files (~48 MB of JSON); unnesting them once keeps every downstream model and test from re-parsing them. -#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

renamed as (

    select
        ----------  ids
        -- the file path without ".json", e.g. "LLM_agent_user/travel planning/12"
        record_key as conversation_id,
        -- LLM-agent files: the simulated user's preference profile
        payload ->> '$.preference_id' as preference_id,
        payload ->> '$.task_context_id' as task_context_id,
        -- human_exp_V2 files: the assistant LLM of the conversation; NULL when the file has none
        payload ->> '$.chat_model' as chat_model,

        ----------  strings
        -- layout: <subset>/[User_<k>/]<task>/<n>.json
        split_part(source_path, '/', 1) as subset,
        nullif(regexp_extract(source_path, '(^|/)(User_[0-9]+)/', 2), '') as user_folder,
        string_split(source_path, '/')[-2] as task_folder,
        -- the task as the file states it: "task" (English, LLM-agent files) or
        -- "task_type" (Chinese, human files), kept raw
        coalesce(payload ->> '$.task', payload ->> '$.task_type') as task_name,
        payload ->> '$.task' as task,
        payload ->> '$.task_type' as task_type,
        payload ->> '$.preference' as preference,
        payload ->> '$.preference_zh' as preference_zh,
        payload ->> '$.task_context' as task_context,
        payload ->> '$.task_context_zh' as task_context_zh,
        source_path,

        ----------  json
        -- an object in the released files, a Python-repr string in some exports
        payload -> '$.profile' as profile,
        payload -> '$.questionnaire' as questionnaire,
        payload -> '$.profile_mapped' as profile_mapped,
        payload -> '$.preference_summary' as preference_summary,
        payload -> '$.rating' as rating,

        ----------  numerics
        cast(json_array_length(payload, '$.history') as integer) as n_messages,
        -- 0-based position of the record in its file (always 0: one conversation per file)
        record_index,

        ----------  booleans
        cast(payload ->> '$.conflict' as boolean) as is_conflict,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
