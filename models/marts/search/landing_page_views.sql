{#- ConvSearch agent search behaviour, published from its intermediate model; see the yml. -#}

with

landing_page_views as (
    select * from {{ ref('int_convsearch__landing_page_views') }}
)

select * from landing_page_views
