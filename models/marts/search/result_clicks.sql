{#- ConvSearch agent search behaviour, published from its intermediate model; see the yml. -#}

with

result_clicks as (
    select * from {{ ref('int_convsearch__result_clicks') }}
)

select * from result_clicks
