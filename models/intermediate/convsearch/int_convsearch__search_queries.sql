-- Source of the `search_queries` mart: one row per agent query request.

with

queries as (

    select * from {{ ref('stg_convsearch__search_queries') }}

),

turns as (

    select * from {{ ref('int_convsearch__turns_indexed') }}

),

clicks as (

    select * from {{ ref('stg_convsearch__serp_clicks') }}

),

clicked_queries as (

    select distinct query_id
    from clicks

),

final as (

    select
        cast('convsearch:' || queries.query_id as string) as query_id,
        cast('convsearch:' || queries.dialog_id as string) as conversation_id,
        cast(turns.turn_index as integer) as turn_index,
        cast(queries.query_string as string) as query_text,
        cast(queries.source_engine as string) as source_engine,
        cast(queries.queried_at as timestamp) as queried_at,
        cast({{ count_words('queries.query_string') }} as integer) as n_words,
        cast(clicked_queries.query_id is not null as boolean) as has_click
    from queries
    left join turns
        on queries.dialog_id = turns.dialog_id
        and queries.turn_id = turns.turn_id
    left join clicked_queries
        on queries.query_id = clicked_queries.query_id

)

select * from final
