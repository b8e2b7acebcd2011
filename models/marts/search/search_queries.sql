{#- ConvSearch agent search behaviour, published from its intermediate model; see the yml. -#}

with

search_queries as (
    select * from {{ ref('int_convsearch__search_queries') }}
)

select * from search_queries
