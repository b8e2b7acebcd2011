with

source as (

    select * from {{ source('recoreact', 'users') }}

),

renamed as (

    select
        ----------  ids
        {{ json_text('payload', '$.uid') }} as user_id,

        ----------  strings
        regexp_extract(source_path, '([a-z]+)-users\.jsonl$', 1) as domain,
        {{ json_text('payload', '$.desc_sources') }} as desc_sources,
        {{ json_text('payload', '$.desc_selection') }} as desc_selection,
        {{ json_text('payload', '$.task_feedback') }} as task_feedback,
        -- news only
        {{ json_text('payload', '$.reasons') }} as reasons,
        {{ json_text_list('payload', '$.source_types') }} as source_types,
        -- travel and food only
        {{ json_text_list('payload', '$.companions') }} as companions,
        -- news only
        {{ json_text_list('payload', '$.frequency') }} as frequency,
        -- the whole profile record, every field as given
        cast(payload as string) as profile_json,
        source_path,

        ----------  numerics (1..5 survey answers)
        cast({{ json_text('payload', '$.personalized') }} as double) as personalized,
        cast({{ json_text('payload', '$.explore') }} as double) as explore,
        cast({{ json_text('payload', '$.task_clear') }} as double) as task_clear,
        cast({{ json_text('payload', '$.task_difficult') }} as double) as task_difficult,
        cast({{ json_text('payload', '$.dialogue_helpful') }} as double) as dialogue_helpful,
        cast({{ json_text('payload', '$.recs_satisfied') }} as double) as recs_satisfied,
        -- news only
        cast({{ json_text('payload', '$.demand') }} as double) as demand,
        record_index,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
