{#-
    ConvSearch's result clicks as implicit relevance judgments (kind 'click'): one row per agent
    query request and result the agent clicked on any of the query's SERPs (pages 1, 2, ...).
    Topic: the query request id (SearchBehaviors.json `id`; its text is the search_queries
    mart's query_text); document: the clicked result's href as the SERP gave it (baidu and sogou
    give redirect links); grade 1. Clicks of type 'tab' (a navigator tab of the SERP) are not
    results and are left out. The SERP logs list only the clicked results, so there are no
    grade-0 judgments. The topic links to the query's dialogue and the turn it was issued for;
    user_id is NULL (the agent clicked, not the conversation's user) and item_id is NULL (web
    results are not items).
-#}

with

clicks as (

    select * from {{ ref('stg_convsearch__serp_clicks') }}

),

queries as (

    select * from {{ ref('stg_convsearch__search_queries') }}

),

turns as (

    select * from {{ ref('int_convsearch__turns_indexed') }}

),

conversations as (

    select * from {{ ref('int_convsearch__conversations_conformed') }}

),

-- a result clicked twice (on one SERP or on two pages of the query) is one judgment
query_clicks as (

    select distinct
        query_id,
        href
    from clicks
    where
        href is not null
        and href <> ''
        and coalesce(click_type, '') <> 'tab'

),

final as (

    -- the relevance_judgments mart's columns, in its order
    select
        cast({{ global_id('convsearch', "query_clicks.query_id || ' ' || query_clicks.href") }} as string) as judgment_id,
        cast('convsearch' as string) as collection,
        cast('convsearch' as string) as corpus,
        cast(query_clicks.query_id as string) as topic_id,
        cast(query_clicks.href as string) as doc_id,
        cast(null as string) as item_id,
        cast(conversations.conversation_id as string) as conversation_id,
        cast(turns.turn_index as integer) as turn_index,
        cast(null as string) as intent_id,
        cast(null as integer) as user_index,
        cast(null as string) as user_id,
        cast(1 as integer) as grade,
        cast('click' as string) as judgment_kind
    from query_clicks
    left join queries
        on query_clicks.query_id = queries.query_id
    left join conversations
        on 'convsearch:' || queries.dialog_id = conversations.conversation_id
    left join turns
        on queries.dialog_id = turns.dialog_id
        and queries.turn_id = turns.turn_id

)

select * from final
