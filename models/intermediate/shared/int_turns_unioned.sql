{#- Every corpus' conformed turns (int_<id>__turns_conformed, registry order), with the merged-turn index: read by the turns and conversations marts, int_turn_text_measures and text_diversity. -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('turns'),
        columns=[
            'conversation_id', 'turn_index', 'role', 'text', 'text_translation',
            'created_at', 'is_image', 'source_turn_id',
        ],
    ) }}
),

with_role_changes as (
    select
        unioned.*,
        case
            when lag(unioned.role) over (
                partition by unioned.conversation_id order by unioned.turn_index
            ) = unioned.role then 0
            else 1
        end as starts_merged_turn
    from unioned
),

final as (
    select
        conversation_id,
        turn_index,
        role,
        text,
        text_translation,
        created_at,
        is_image,
        source_turn_id,
        -- consecutive utterances of the same role share one merged turn
        cast(
            sum(starts_merged_turn) over (
                partition by conversation_id order by turn_index
                rows between unbounded preceding and current row
            ) - 1 as integer
        ) as merged_turn_index
    from with_role_changes
)

select * from final
