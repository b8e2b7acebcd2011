{#- RecLLMSim user-message intent labels in the conformed contract (docs/ARCHITECTURE.md). -#}

with

user_intents as (

    select * from {{ ref('int_recllmsim__user_intents') }}

),

final as (

    select
        cast({{ global_id('recllmsim', 'conversation_id') }} as string) as conversation_id,
        cast(message_index as integer) as turn_index,
        cast(
            case source when 'llm' then 'user_simulator' else 'user' end as string
        ) as annotator,
        cast(label_scheme as string) as label_scheme,
        cast(raw_label as string) as raw_label,
        -- multi-label without ranking: every label is a primary label
        cast(true as boolean) as is_primary,
        cast(null as string) as standalone_query,
        cast(null as string) as intent_id,
        cast(source as string) as source
    from user_intents

)

select * from final
