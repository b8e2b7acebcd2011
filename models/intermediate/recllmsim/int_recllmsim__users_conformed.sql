{#-
    RecLLMSim users in the conformed contract, one per user_id: real human users
    (real_human_user/User_<k>: attributes = their profiles and per-conversation
    questionnaires) and simulated users (preference_<id>: profile_text = the English
    preference, attributes = its id, Chinese translation and structured profile).
-#}

with

conversations as (

    select * from {{ ref('stg_recllmsim__conversations') }}

),

conversations_classified as (

    select * from {{ ref('int_recllmsim__conversations_classified') }}

),

profiles_parsed as (

    select * from {{ ref('int_recllmsim__profiles_parsed') }}

),

user_conversations as (

    select
        conversations_classified.source_user_id,
        conversations_classified.user_kind,
        conversations_classified.subset,
        conversations.conversation_id,
        conversations.preference_id,
        conversations.preference,
        conversations.preference_zh,
        conversations.profile_mapped,
        {{ as_json('profiles_parsed.profile_json') }} as profile,
        {{ as_json('profiles_parsed.questionnaire_json') }} as questionnaire
    from conversations_classified
    inner join conversations
        on conversations_classified.conversation_id = conversations.conversation_id
    left join profiles_parsed
        on conversations_classified.conversation_id = profiles_parsed.conversation_id
    where conversations_classified.source_user_id is not null

),

human_users as (

    select
        source_user_id,
        {{ arg_min('subset', 'conversation_id') }} as subset,
        cast(null as string) as profile_text,
        -- the distinct profiles the user's files carry (usually one; in text order, so two builds
        -- give the same list), and the
        -- post-conversation questionnaire by conversation id
        {{ json_object_text([
            'profiles',
            {'json_list': agg_distinct_sorted('profile', non_null=true)},
            'questionnaires',
            {'json': json_object_agg_text("'recllmsim:' || conversation_id", 'questionnaire', 'conversation_id')},
        ]) }} as attributes
    from user_conversations
    where user_kind = 'human'
    group by source_user_id

),

simulated_users as (

    select
        source_user_id,
        -- the values of the user's first conversation (by id)
        {{ arg_min('subset', 'conversation_id') }} as subset,
        {{ arg_min('preference', 'conversation_id') }} as profile_text,
        {{ json_object_text([
            'preference_id', arg_min('preference_id', 'conversation_id'),
            'preference_zh', arg_min('preference_zh', 'conversation_id'),
            'profile_mapped', {'json': arg_min('profile_mapped', 'conversation_id')},
        ]) }} as attributes
    from user_conversations
    where user_kind = 'simulated'
    group by source_user_id

),

unioned as (

    select * from human_users
    union all
    select * from simulated_users

),

final as (

    select
        cast({{ global_id('recllmsim', 'source_user_id') }} as string) as user_id,
        cast('recllmsim' as string) as corpus,
        cast(source_user_id as string) as source_user_id,
        cast(subset as string) as subset,
        cast(profile_text as string) as profile_text,
        cast(null as string) as keywords,
        cast(attributes as string) as attributes
    from unioned

)

select * from final
