with

source as (

    select * from {{ source('recoreact', 'users') }}

),

renamed as (

    select
        ----------  ids
        payload ->> '$.uid' as user_id,

        ----------  strings
        regexp_extract(source_path, '([a-z]+)-users\.jsonl$', 1) as domain,
        payload ->> '$.desc_sources' as desc_sources,
        payload ->> '$.desc_selection' as desc_selection,
        payload ->> '$.task_feedback' as task_feedback,
        -- news only
        payload ->> '$.reasons' as reasons,
        cast(payload ->> '$.source_types[*]' as varchar[]) as source_types,
        -- travel and food only
        cast(payload ->> '$.companions[*]' as varchar[]) as companions,
        -- news only
        cast(payload ->> '$.frequency[*]' as varchar[]) as frequency,
        -- the whole profile record, every field as given
        cast(payload as varchar) as profile_json,
        source_path,

        ----------  numerics (1..5 survey answers)
        cast(payload ->> '$.personalized' as double) as personalized,
        cast(payload ->> '$.explore' as double) as explore,
        cast(payload ->> '$.task_clear' as double) as task_clear,
        cast(payload ->> '$.task_difficult' as double) as task_difficult,
        cast(payload ->> '$.dialogue_helpful' as double) as dialogue_helpful,
        cast(payload ->> '$.recs_satisfied' as double) as recs_satisfied,
        -- news only
        cast(payload ->> '$.demand' as double) as demand,
        record_index,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
