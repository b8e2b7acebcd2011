{#- Published from `int_convsearch__result_clicks` with its columns listed explicitly; see the yml. -#}

with

result_clicks as (
    select * from {{ ref('int_convsearch__result_clicks') }}
),

final as (
    select
        click_id,
        serp_view_id,
        query_id,
        conversation_id,
        rank,
        click_type,
        url
    from result_clicks
)

select * from final
