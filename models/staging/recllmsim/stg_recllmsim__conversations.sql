{{ config(materialized="table") }}
{#- A table, not a view: RecLLMSim payloads are whole files (~48 MB of JSON); unnesting them once keeps every downstream model and test from re-parsing them. -#}

with

source as (

    select * from {{ source('recllmsim', 'conversations') }}

),

{#- Memory: each JSON path operator parses the whole payload again,
    and DuckDB keeps every parse of a 2048-row chunk until the chunk is done (18 operators took
    ~1.4 GB). One from_json keeps only the fields below and each message's role, whose count is
    the history's length (~0.2 GB; with a second parse for the length, the model and
    behaviour_labels beside it did not fit in 512 MiB). Only a history that is not a list is
    measured by json_array_length (a CASE evaluates that branch for those rows only): the
    values are the same. -#}
parsed as (

    select
        source.*,
        {{ json_struct('payload', {
            'preference_id': 'VARCHAR', 'task_context_id': 'VARCHAR', 'chat_model': 'VARCHAR',
            'task': 'VARCHAR', 'task_type': 'VARCHAR', 'preference': 'VARCHAR',
            'preference_zh': 'VARCHAR', 'task_context': 'VARCHAR',
            'task_context_zh': 'VARCHAR', 'conflict': 'VARCHAR',
            'profile': 'JSON', 'questionnaire': 'JSON', 'profile_mapped': 'JSON',
            'preference_summary': 'JSON', 'rating': 'JSON',
            'history': [{'role': 'VARCHAR'}],
        }) }} as fields
    from source

),

renamed as (

    select
        ----------  ids
        -- the file path without ".json", e.g. "LLM_agent_user/travel planning/12"
        record_key as conversation_id,
        -- LLM-agent files: the simulated user's preference profile
        fields.preference_id as preference_id,
        fields.task_context_id as task_context_id,
        -- human_exp_V2 files: the assistant LLM of the conversation; NULL when the file has none
        fields.chat_model as chat_model,

        ----------  strings
        -- layout: <subset>/[User_<k>/]<task>/<n>.json
        split_part(source_path, '/', 1) as subset,
        nullif(regexp_extract(source_path, '(^|/)(User_[0-9]+)/', 2), '') as user_folder,
        {{ array_at(split_on_char('source_path', "'/'"), -2) }} as task_folder,
        -- the task as the file states it: "task" (English, LLM-agent files) or
        -- "task_type" (Chinese, human files), kept raw
        coalesce(fields.task, fields.task_type) as task_name,
        fields.task as task,
        fields.task_type as task_type,
        fields.preference as preference,
        fields.preference_zh as preference_zh,
        fields.task_context as task_context,
        fields.task_context_zh as task_context_zh,
        source_path,

        ----------  json
        -- an object in the released files, a Python-repr string in some exports
        fields.profile as profile,
        fields.questionnaire as questionnaire,
        fields.profile_mapped as profile_mapped,
        fields.preference_summary as preference_summary,
        fields.rating as rating,

        ----------  numerics
        cast(
            case
                when fields.history is not null then {{ array_size('fields.history') }}
                else {{ json_array_length_at('payload', '$.history') }}
            end as integer
        ) as n_messages,
        -- 0-based position of the record in its file (always 0: one conversation per file)
        record_index,

        ----------  booleans
        cast(fields.conflict as boolean) as is_conflict,

        ----------  timestamps
        ingested_at

    from parsed

)

select * from renamed
