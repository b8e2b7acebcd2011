-- Source of the `serp_views` mart: one row per search engine result page the agent viewed.

with

serp_pagelogs as (

    select * from {{ ref('stg_convsearch__serp_pagelogs') }}

),

final as (

    select
        cast('convsearch:' || serp_pagelog_id as string) as serp_view_id,
        cast('convsearch:' || query_id as string) as query_id,
        cast('convsearch:' || dialog_id as string) as conversation_id,
        cast(url as string) as url,
        cast(page_number as integer) as page_number,
        cast(started_at as timestamp) as started_at,
        cast(ended_at as timestamp) as ended_at,
        cast(dwell_ms as bigint) as dwell_ms
    from serp_pagelogs

)

select * from final
