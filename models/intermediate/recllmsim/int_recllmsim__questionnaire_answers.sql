{#-
    One row per answer of a RecLLMSim human questionnaire (human files: real_human_user,
    human_exp_V2, ...): the item (`summary`, e.g. Detail), its question text and the option
    chosen, in file order. Read from the parsed questionnaire (JSON or Python-repr in the file).
-#}

with

profiles_parsed as (

    select * from {{ ref('int_recllmsim__profiles_parsed') }}

),

answers as (

    select
        profiles_parsed.conversation_id,
        answer_list.answer,
        answer_list.answer_number
    from profiles_parsed
    {{ unnest_join(
        json_to_array(as_json('profiles_parsed.questionnaire_json')), 'answer_list', 'answer', 'answer_number'
    ) }}
    where profiles_parsed.questionnaire_json is not null

),

final as (

    select
        ----------  ids
        conversation_id,

        ----------  strings
        -- the item's short name, e.g. Memorization, Detail, Availability, Diversity
        {{ json_text('answer', '$.summary') }} as item,
        -- the question as put to the user (Chinese)
        {{ json_text('answer', '$.query') }} as question,
        -- the option chosen, verbatim (e.g. 详细, 一般, 简略)
        {{ json_text('answer', '$.option') }} as answer_option,

        ----------  numerics
        -- 0-based position of the answer in the questionnaire
        cast(answer_number - 1 as integer) as answer_index

    from answers

)

select * from final
