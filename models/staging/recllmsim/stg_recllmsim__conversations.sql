{{ config(materialized="table") }}
{#- A table, not a view: RecLLMSim payloads are whole files (~48 MB of JSON); unnesting them once keeps every downstream model and test from re-parsing them. -#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

{#- Each JSON path operator parses the whole payload again, and DuckDB keeps every parse of a
    2048-row chunk until the chunk is done: 18 operators took ~1.4 GB. One list extraction per
    kind parses each payload once (~0.2 GB); the values are the same. -#}
parsed as (

    select
        source.*,
        json_extract_string(
            payload,
            [
                '$.preference_id', '$.task_context_id', '$.chat_model', '$.task', '$.task_type',
                '$.preference', '$.preference_zh', '$.task_context', '$.task_context_zh',
                '$.conflict'
            ]
        ) as strings,
        json_extract(
            payload,
            [
                '$.profile', '$.questionnaire', '$.profile_mapped', '$.preference_summary',
                '$.rating', '$.history'
            ]
        ) as objects
    from source

),

renamed as (

    select
        ----------  ids
        -- the file path without ".json", e.g. "LLM_agent_user/travel planning/12"
        record_key as conversation_id,
        -- LLM-agent files: the simulated user's preference profile
        strings[1] as preference_id,
        strings[2] as task_context_id,
        -- human_exp_V2 files: the assistant LLM of the conversation; NULL when the file has none
        strings[3] as chat_model,

        ----------  strings
        -- layout: <subset>/[User_<k>/]<task>/<n>.json
        split_part(source_path, '/', 1) as subset,
        nullif(regexp_extract(source_path, '(^|/)(User_[0-9]+)/', 2), '') as user_folder,
        string_split(source_path, '/')[-2] as task_folder,
        -- the task as the file states it: "task" (English, LLM-agent files) or
        -- "task_type" (Chinese, human files), kept raw
        coalesce(strings[4], strings[5]) as task_name,
        strings[4] as task,
        strings[5] as task_type,
        strings[6] as preference,
        strings[7] as preference_zh,
        strings[8] as task_context,
        strings[9] as task_context_zh,
        source_path,

        ----------  json
        -- an object in the released files, a Python-repr string in some exports
        objects[1] as profile,
        objects[2] as questionnaire,
        objects[3] as profile_mapped,
        objects[4] as preference_summary,
        objects[5] as rating,

        ----------  numerics
        cast(json_array_length(objects[6]) as integer) as n_messages,
        -- 0-based position of the record in its file (always 0: one conversation per file)
        record_index,

        ----------  booleans
        cast(strings[10] as boolean) as is_conflict,

        ----------  timestamps
        ingested_at

    from parsed

)

select * from renamed
