{#-
    RecLLMSim ratings in the conformed contract:
    - the LLM evaluator's seven conversation-level aspects (0..2, LLM-agent files);
    - each assistant message's hallucination judgment (1/0; by an LLM in LLM-agent files, by
      the user in human files; a user's "cannot judge" gives no row);
    - every answer of the human post-conversation questionnaire (aspect
      'questionnaire:<item>', value from the questionnaire_options seed, the option text kept
      in raw_value; an option the seed does not know lands with a NULL value);
    - each assistant message's satisfaction score from the user ('1'..'5', human_exp_V2),
      with the user's free-text reason as comment.
-#}

with

ratings as (

    select * from {{ ref('stg_recllmsim__ratings') }}

),

messages as (

    select * from {{ ref('stg_recllmsim__messages') }}

),

hallucinations as (

    select * from {{ ref('int_recllmsim__hallucinations') }}

),

questionnaire_answers as (

    select * from {{ ref('int_recllmsim__questionnaire_answers') }}

),

questionnaire_options as (

    select * from {{ ref('questionnaire_options') }}
    where corpus = 'recllmsim'

),

conversations_classified as (

    select * from {{ ref('int_recllmsim__conversations_classified') }}

),

raters as (

    -- human files are rated by their user; everything else by an LLM
    select
        conversation_id,
        case when user_kind = 'human' then 'user' else 'llm' end as rater_kind,
        case
            when user_kind = 'human' then {{ global_id('recllmsim', 'source_user_id') }}
        end as rater_id
    from conversations_classified

),

conversation_ratings as (

    select
        conversation_id,
        cast(null as integer) as turn_index,
        'llm' as rater_kind,
        cast(null as string) as rater_id,
        aspect,
        rating_value as value,
        cast(null as string) as raw_value,
        cast(null as string) as comment
    from ratings

),

turn_hallucinations as (

    select
        hallucinations.conversation_id,
        hallucinations.message_index as turn_index,
        raters.rater_kind,
        raters.rater_id,
        'hallucination' as aspect,
        hallucinations.hallucination_value as value,
        hallucinations.raw_label as raw_value,
        hallucinations.memo as comment
    from hallucinations
    inner join raters
        on hallucinations.conversation_id = raters.conversation_id
    -- "无法判断" (the user could not judge) is no rating
    where hallucinations.hallucination_value is not null

),

questionnaire_ratings as (

    select
        questionnaire_answers.conversation_id,
        cast(null as integer) as turn_index,
        'user' as rater_kind,
        raters.rater_id,
        'questionnaire:' || questionnaire_answers.item as aspect,
        questionnaire_options.value,
        questionnaire_answers.answer_option as raw_value,
        cast(null as string) as comment
    from questionnaire_answers
    inner join raters
        on questionnaire_answers.conversation_id = raters.conversation_id
    left join questionnaire_options
        on questionnaire_answers.item = questionnaire_options.item
        and questionnaire_answers.answer_option = questionnaire_options.answer_option

),

turn_satisfaction as (

    select
        messages.conversation_id,
        messages.message_index as turn_index,
        'user' as rater_kind,
        raters.rater_id,
        'satisfaction' as aspect,
        try_cast(messages.satisfaction as double) as value,
        messages.satisfaction as raw_value,
        messages.reason as comment
    from messages
    inner join raters
        on messages.conversation_id = raters.conversation_id
    where messages.satisfaction is not null or messages.reason is not null

),

unioned as (

    select * from conversation_ratings
    union all
    select * from turn_hallucinations
    union all
    select * from questionnaire_ratings
    union all
    select * from turn_satisfaction

),

final as (

    select
        cast({{ global_id('recllmsim', 'conversation_id') }} as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(null as string) as item_id,
        cast(rater_kind as string) as rater_kind,
        cast(rater_id as string) as rater_id,
        cast(aspect as string) as aspect,
        cast(value as double) as value,
        cast(raw_value as string) as raw_value,
        cast(comment as string) as comment
    from unioned

)

select * from final
