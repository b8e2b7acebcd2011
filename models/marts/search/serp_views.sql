{#- Published from `int_convsearch__serp_views` with its columns listed explicitly; see the yml. -#}

with

serp_views as (
    select * from {{ ref('int_convsearch__serp_views') }}
),

final as (
    select
        serp_view_id,
        query_id,
        conversation_id,
        url,
        page_number,
        started_at,
        ended_at,
        dwell_ms
    from serp_views
)

select * from final
