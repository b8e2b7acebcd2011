{#- Every corpus' conformed turns (int_<id>__turns_conformed, registry order): read by the turns mart and int_turn_text_measures. -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('turns'),
        columns=[
            'conversation_id', 'turn_index', 'role', 'text', 'text_translation',
            'created_at', 'is_image', 'source_turn_id',
        ],
    ) }}
)

select * from unioned
