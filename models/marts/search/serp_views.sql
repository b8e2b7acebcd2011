{#- ConvSearch agent search behaviour, published from its intermediate model; see the yml. -#}

with

serp_views as (
    select * from {{ ref('int_convsearch__serp_views') }}
)

select * from serp_views
