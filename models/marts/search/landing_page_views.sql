{#- Published from `int_convsearch__landing_page_views` with its columns listed explicitly; see the yml. -#}

with

landing_page_views as (
    select * from {{ ref('int_convsearch__landing_page_views') }}
),

final as (
    select
        landing_page_view_id,
        query_id,
        conversation_id,
        url,
        started_at,
        ended_at,
        dwell_ms,
        helpfulness
    from landing_page_views
)

select * from final
