{#-
    RecLLMSim assistant-message hallucination judgments as 1 (hallucinates) / 0 (does not) /
    NULL (could not tell). LLM-agent files hold {hallucination: bool, memo}; real-human
    files hold "是" (yes) / "否" (no) / "无法判断" (cannot judge), given by the user.
-#}

with

messages as (

    select * from {{ ref('stg_recllmsim__messages') }}

),

judged_messages as (

    select
        conversation_id,
        message_index,
        hallucination
    from messages
    where role = 'assistant'
        and {{ json_type_of('hallucination') }} in ('OBJECT', 'VARCHAR')

),

normalised as (

    select
        conversation_id,
        message_index,
        case {{ json_type_of('hallucination') }}
            when 'OBJECT' then 'object'
            else 'label'
        end as judgment_format,
        case
            when {{ json_type_of('hallucination') }} = 'OBJECT' then
                cast(cast({{ json_text('hallucination', '$.hallucination') }} as boolean) as integer)
            when {{ json_text('hallucination') }} = '是' then 1
            when {{ json_text('hallucination') }} = '否' then 0
        end as hallucination_value,
        case
            when {{ json_type_of('hallucination') }} = 'OBJECT' then {{ json_text('hallucination', '$.memo') }}
        end as memo,
        case
            when {{ json_type_of('hallucination') }} = 'VARCHAR' then {{ json_text('hallucination') }}
        end as raw_label
    from judged_messages

),

final as (

    select
        ----------  ids
        conversation_id,

        ----------  strings
        judgment_format,
        raw_label,
        memo,

        ----------  numerics
        cast(message_index as integer) as message_index,
        cast(hallucination_value as integer) as hallucination_value

    from normalised

)

select * from final
