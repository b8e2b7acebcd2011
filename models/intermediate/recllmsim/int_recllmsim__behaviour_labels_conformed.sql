{#-
    RecLLMSim user-behaviour labels in the behaviour_labels contract. A scheme is a top-level
    "strategy*" key; "1", "2", "3" are the three samples of the authors' LLM classifier and
    "final" their ensemble (user_behavior/strategy_cls.py, multi_cls); schemes named
    strategy_human* hold a human annotator's label (final only, user_behavior/human_label.py).
-#}

with

behaviour_labels as (

    select * from {{ ref('stg_recllmsim__behaviour_labels') }}

),

final as (

    select
        cast({{ global_id('recllmsim', 'conversation_id') }} as string) as conversation_id,
        cast(scheme as string) as scheme,
        cast(case when scheme like 'strategy_human%' then 'human' else 'llm' end as string)
            as labeller,
        cast(try_cast(run_key as integer) as integer) as classification_run,
        cast(run_key = 'final' as boolean) as is_final,
        cast(dimension as string) as dimension,
        cast(label_value as string) as label_value,
        cast(case when label_json_type in ('UBIGINT', 'BIGINT', 'DOUBLE') then try_cast(label_value as double) end as double)
            as label_number
    from behaviour_labels

)

select * from final
