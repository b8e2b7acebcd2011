{#- ConvSearch Figure 2 (statistical analysis): dialogues per user-annotated topic (`topic_user`). -#}

with

conversations as (
    select * from {{ ref('conversations') }}
),

dialogues as (
    select
        conversation_id,
        domain_or_task as topic
    from conversations
    where corpus = 'convsearch'
),

final as (
    select
        -- strings
        topic,
        -- numerics
        cast(count(*) as integer) as n_dialogues,
        -- double on both engines (Spark keeps 100.0 * n / total a DECIMAL); the same quotient of
        -- the same two integers as DuckDB's implicit cast
        cast(100 * count(*) as double) / cast(sum(count(*)) over () as double) as percent_of_dialogues
    from dialogues
    group by topic
)

select * from final
