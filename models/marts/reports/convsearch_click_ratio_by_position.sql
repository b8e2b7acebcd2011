{#-
    ConvSearch Figure 4b (statistical analysis): click ratio by ranking position -- the share
    of all SERP views with a click on a result at that rank (content clicks; ranks over 10
    pooled as '>10').
-#}

with

serp_views as (
    select * from {{ ref('serp_views') }}
),

result_clicks as (
    select * from {{ ref('result_clicks') }}
),

totals as (
    select count(*) as n_serp_views
    from serp_views
),

digits as (
    select 0 as d union all select 1 union all select 2 union all select 3 union all select 4
    union all select 5 union all select 6 union all select 7 union all select 8 union all select 9
),

positions as (
    select
        tens.d * 10 + units.d as position_order
    from digits as tens
    cross join digits as units
    where tens.d * 10 + units.d between 1 and 11
),

clicked as (
    select
        case when rank > 10 then 11 else rank end as position_order,
        count(distinct serp_view_id) as n_serp_views_clicked,
        count(*) as n_clicks
    from result_clicks
    where click_type = 'content'
        and rank >= 1
    group by case when rank > 10 then 11 else rank end
),

final as (
    select
        -- numerics
        cast(positions.position_order as integer) as position_order,
        -- strings
        case
            when positions.position_order = 11 then '>10'
            else {{ dbt.cast("positions.position_order", api.Column.translate_type("string")) }}
        end as position,
        -- numerics
        cast(coalesce(clicked.n_clicks, 0) as integer) as n_clicks,
        cast(coalesce(clicked.n_serp_views_clicked, 0) as integer) as n_serp_views_clicked,
        cast(totals.n_serp_views as integer) as n_serp_views,
        cast(coalesce(clicked.n_serp_views_clicked, 0) as double) / totals.n_serp_views as click_ratio
    from positions
    cross join totals
    left join clicked
        on positions.position_order = clicked.position_order
    where totals.n_serp_views > 0
)

select * from final
