{#- One row per (topic, document) judgment of every corpus with judgments: the union of the int_<id>__relevance_judgments_conformed models; see the yml. -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('relevance_judgments'),
        columns=[
            'judgment_id', 'collection', 'corpus', 'topic_id', 'doc_id', 'item_id', 'conversation_id',
            'turn_index', 'intent_id', 'user_index', 'user_id', 'grade', 'judgment_kind',
        ],
    ) }}
)

select * from unioned
