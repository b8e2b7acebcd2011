{#-
    One row per RecLLMSim conversation (file) with what its path and subset say about it:
    the English task, the language of `content`, and the user it belongs to
    (real-human files: the User_<k> folder; LLM-agent files: the simulated preference).
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
        -- real humans wrote Chinese; LLM-agent (and V2) files are English with content_zh
        case when subset = 'real_human_user' then 'zh' else 'en' end as language,
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

        ----------  strings
        subset,
        task_folder,
        task_name,
        task,
        language,
        -- human (User_<k> folder) or simulated (preference profile); NULL when neither
        user_kind

    from classified

)

select * from final
