{#-
    One row per RecLLMSim conversation (file) with what its path and fields say about it:
    the English task, the assistant model, and the user it belongs to (human files: the
    User_<k> folder of its release; LLM-agent files: the simulated preference). The language
    is not decided here: the conversations mart detects it from the text.
-#}

with

conversations as (

    select * from {{ ref('stg_recllmsim__conversations') }}

),

classified as (

    select
        conversation_id,
        subset,
        task_folder,
        task_name,
        -- real-human task names are Chinese; the LLM-agent names are the English ones
        coalesce(
            case task_name
                when '旅行规划' then 'travel planning'
                when '礼物准备' then 'preparing gifts'
                when '菜谱规划' then 'recipe planning'
                when '技能学习规划' then 'skills learning planning'
            end,
            task_name,
            task_folder
        ) as task,
        -- the assistant LLM: the file's chat_model; files without one were made with the
        -- default the authors' scripts assume (var recllmsim_default_chat_model)
        coalesce(chat_model, '{{ var("recllmsim_default_chat_model") }}') as system_id,
        chat_model is null as is_default_chat_model,
        case
            when user_folder is not null then subset || '/' || user_folder
            when preference_id is not null then 'preference_' || preference_id
        end as source_user_id,
        case
            when user_folder is not null then 'human'
            when preference_id is not null then 'simulated'
        end as user_kind
    from conversations

),

final as (

    select
        ----------  ids
        conversation_id,
        source_user_id,
        system_id,

        ----------  strings
        subset,
        task_folder,
        task_name,
        task,
        -- human (User_<k> folder) or simulated (preference profile); NULL when neither
        user_kind,

        ----------  booleans
        is_default_chat_model

    from classified

)

select * from final
