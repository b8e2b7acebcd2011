-- Source of the `result_clicks` mart: one row per result clicked on a SERP.

with

clicks as (

    select * from {{ ref('stg_convsearch__serp_clicks') }}

),

final as (

    select
        cast('convsearch:' || serp_pagelog_id || ':' || click_position as string) as click_id,
        cast('convsearch:' || serp_pagelog_id as string) as serp_view_id,
        cast('convsearch:' || query_id as string) as query_id,
        cast('convsearch:' || dialog_id as string) as conversation_id,
        cast(result_rank as integer) as rank,
        cast(click_type as string) as click_type,
        cast(href as string) as url
    from clicks

)

select * from final
