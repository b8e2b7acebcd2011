{#- CoSRec qrels joined to their intent and turn, published from `int_cosrec__relevance_judgments`; see the yml. -#}

with

relevance_judgments as (
    select * from {{ ref('int_cosrec__relevance_judgments') }}
),

final as (
    select
        judgment_id,
        topic_id,
        intent_id,
        conversation_id,
        turn_index,
        user_index,
        user_id,
        doc_id,
        item_id,
        grade,
        judgment_kind
    from relevance_judgments
)

select * from final
