-- Source of the `landing_page_views` mart: one row per landing page the agent read.

with

landing_pagelogs as (

    select * from {{ ref('stg_convsearch__landing_pagelogs') }}

),

final as (

    select
        cast('convsearch:' || landing_pagelog_id as string) as landing_page_view_id,
        cast('convsearch:' || query_id as string) as query_id,
        cast('convsearch:' || dialog_id as string) as conversation_id,
        cast(url as string) as url,
        cast(started_at as timestamp) as started_at,
        cast(ended_at as timestamp) as ended_at,
        cast(dwell_ms as bigint) as dwell_ms,
        cast(helpfulness as double) as helpfulness
    from landing_pagelogs

)

select * from final
