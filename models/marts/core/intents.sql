{#- One row per (turn, annotator, label), with the shared intent family from the taxonomy seed. -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('intents'),
        columns=[
            'conversation_id', 'turn_index', 'annotator', 'label_scheme', 'raw_label',
            'is_primary', 'standalone_query', 'intent_id', 'source',
        ],
    ) }}
),

intent_taxonomy as (
    select * from {{ ref('intent_taxonomy') }}
),

final as (
    select
        -- ids
        unioned.conversation_id,
        unioned.intent_id,
        -- strings
        {{ dbt.split_part("unioned.conversation_id", "':'", 1) }} as corpus,
        unioned.annotator,
        unioned.label_scheme,
        unioned.raw_label,
        -- a label the intent_taxonomy seed does not know is 'unmapped' (open vocabulary)
        coalesce(intent_taxonomy.intent_family, 'unmapped') as intent_family,
        unioned.standalone_query,
        unioned.source,
        -- numerics
        unioned.turn_index,
        -- booleans
        unioned.is_primary
    from unioned
    left join intent_taxonomy
        on unioned.label_scheme = intent_taxonomy.label_scheme
        and unioned.raw_label = intent_taxonomy.raw_label
)

select * from final
