{#- One row per user-behaviour label (conversation × scheme × run × dimension) of every corpus that has them. -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('behaviour_labels'),
        columns=[
            'conversation_id', 'scheme', 'labeller', 'classification_run', 'is_final',
            'dimension', 'label_value', 'label_number',
        ],
    ) }}
),

final as (
    select
        -- ids
        unioned.conversation_id,
        -- strings
        {{ dbt.split_part("unioned.conversation_id", "':'", 1) }} as corpus,
        unioned.scheme,
        unioned.labeller,
        unioned.dimension,
        unioned.label_value,
        -- numerics
        unioned.classification_run,
        unioned.label_number,
        -- booleans
        unioned.is_final
    from unioned
)

select * from final
