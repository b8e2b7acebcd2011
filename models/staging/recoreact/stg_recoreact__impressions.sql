with

source as (

    select * from {{ source('recoreact', 'impressions') }}

),

renamed as (

    select
        ----------  ids
        {{ json_text('payload', '$.iid') }} as impression_id,
        {{ json_text('payload', '$.uid') }} as user_id,

        ----------  strings
        regexp_extract(source_path, '([a-z]+)-impressions\.jsonl$', 1) as domain,
        {{ json_text_list('payload', '$.categories') }} as categories,
        {{ json_text('payload', '$.request') }} as request,
        {{ json_text('payload', '$.update1') }} as update1,
        {{ json_text('payload', '$.update2') }} as update2,
        {{ json_text('payload', '$.summary') }} as summary,
        source_path,

        ----------  numerics
        cast({{ json_text('payload', '$.round') }} as integer) as round,
        -- 1..9
        cast({{ json_text('payload', '$.rating1') }} as double) as rating1,
        cast({{ json_text('payload', '$.rating2') }} as double) as rating2,
        cast({{ json_text('payload', '$.rating3') }} as double) as rating3,
        cast({{ json_text('payload', '$.rating_summary') }} as double) as rating_summary,
        -- 1..5
        cast({{ json_text('payload', '$.good_suggestions') }} as double) as good_suggestions,
        cast({{ json_text('payload', '$.good_selections') }} as double) as good_selections,
        cast({{ json_text('payload', '$.good_request_match') }} as double) as good_request_match,
        cast({{ json_text('payload', '$.good_summary_match') }} as double) as good_summary_match,
        cast({{ json_array_length_at('payload', '$.selected1') }} as integer) as n_selected1,
        cast({{ json_array_length_at('payload', '$.selected2') }} as integer) as n_selected2,
        cast({{ json_array_length_at('payload', '$.selected3') }} as integer) as n_selected3,
        record_index,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
