{#-
    RecoReact's selections as implicit relevance judgments (kind 'selection'): one row per user
    round and product the user selected in any of the round's three selection steps
    (selected1..3). Topic '<domain>:<uid>#<round>' (the conversation's source id, '#', the
    round), document the product id (pid), grade 1. The files do not list the 12 items each step
    showed, so there are no grade-0 judgments. The topic links to the user, the conversation and
    the round's first turn (its request).
-#}

with

selections as (

    select * from {{ ref('stg_recoreact__selections') }}

),

impressions as (

    select * from {{ ref('stg_recoreact__impressions') }}

),

turns as (

    select * from {{ ref('int_recoreact__turns') }}

),

items as (

    select distinct item_id from {{ ref('int_recoreact__items_conformed') }}

),

-- a product selected in two steps of a round (or in two records of one round) is one judgment
round_selections as (

    select distinct
        selections.domain,
        selections.user_id,
        impressions.round,
        selections.product_id
    from selections
    inner join impressions
        on selections.domain = impressions.domain
        and selections.impression_id = impressions.impression_id
    where selections.product_id is not null

),

judged as (

    select
        domain || ':' || user_id || '#' || cast(round as string) as topic_id,
        product_id,
        'recoreact:' || domain || ':' || product_id as candidate_item_id,
        'recoreact:' || domain || ':' || user_id as conversation_id,
        'recoreact:' || domain || ':' || user_id as user_id,
        round
    from round_selections

),

round_first_turns as (

    select
        conversation_id,
        round,
        min(turn_index) as turn_index
    from turns
    group by conversation_id, round

),

final as (

    -- the relevance_judgments mart's columns, in its order
    select
        cast({{ global_id('recoreact', "judged.topic_id || ' ' || judged.product_id") }} as string) as judgment_id,
        cast('recoreact' as string) as collection,
        cast('recoreact' as string) as corpus,
        cast(judged.topic_id as string) as topic_id,
        cast(judged.product_id as string) as doc_id,
        cast(items.item_id as string) as item_id,
        cast(judged.conversation_id as string) as conversation_id,
        cast(round_first_turns.turn_index as integer) as turn_index,
        cast(null as string) as intent_id,
        cast(null as integer) as user_index,
        cast(judged.user_id as string) as user_id,
        cast(1 as integer) as grade,
        cast('selection' as string) as judgment_kind
    from judged
    left join items
        on judged.candidate_item_id = items.item_id
    left join round_first_turns
        on judged.conversation_id = round_first_turns.conversation_id
        and judged.round = round_first_turns.round

)

select * from final
