{#- Published from `int_convsearch__search_queries` with its columns listed explicitly; see the yml. -#}

with

search_queries as (
    select * from {{ ref('int_convsearch__search_queries') }}
),

final as (
    select
        query_id,
        conversation_id,
        turn_index,
        query_text,
        source_engine,
        queried_at,
        n_words,
        has_click
    from search_queries
)

select * from final
