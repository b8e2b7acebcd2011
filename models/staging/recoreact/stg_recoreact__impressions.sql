with

source as (

    select * from {{ source('recoreact', 'impressions') }}

),

renamed as (

    select
        ----------  ids
        payload ->> '$.iid' as impression_id,
        payload ->> '$.uid' as user_id,

        ----------  strings
        regexp_extract(source_path, '([a-z]+)-impressions\.jsonl$', 1) as domain,
        cast(payload ->> '$.categories[*]' as varchar[]) as categories,
        payload ->> '$.request' as request,
        payload ->> '$.update1' as update1,
        payload ->> '$.update2' as update2,
        payload ->> '$.summary' as summary,
        source_path,

        ----------  numerics
        cast(payload ->> '$.round' as integer) as round,
        -- 1..9
        cast(payload ->> '$.rating1' as double) as rating1,
        cast(payload ->> '$.rating2' as double) as rating2,
        cast(payload ->> '$.rating3' as double) as rating3,
        cast(payload ->> '$.rating_summary' as double) as rating_summary,
        -- 1..5
        cast(payload ->> '$.good_suggestions' as double) as good_suggestions,
        cast(payload ->> '$.good_selections' as double) as good_selections,
        cast(payload ->> '$.good_request_match' as double) as good_request_match,
        cast(payload ->> '$.good_summary_match' as double) as good_summary_match,
        cast(json_array_length(payload, '$.selected1') as integer) as n_selected1,
        cast(json_array_length(payload, '$.selected2') as integer) as n_selected2,
        cast(json_array_length(payload, '$.selected3') as integer) as n_selected3,
        record_index,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
