{#-
    One row per RecLLMSim conversation with the measures the corpus authors' scripts
    (statistics/, user_behavior/ at github.com/wzf2000/RecLLMSim) aggregate: which side of the
    dataset it is (LLM-agent user or human user), its scenario, chat model and profile key, its
    turns as the scripts count them, its token counts and its 0..2 quality scores.

    Token counts come from `turns.n_tokens` / `turns.n_tokens_translation` when the turns mart
    has them (checked at run time); they are NULL otherwise.
-#}

{%- set turn_columns = [] -%}
{%- if execute -%}
    {%- set turn_columns = adapter.get_columns_in_relation(ref('turns')) | map(attribute='name') | map('lower') | list -%}
{%- endif -%}
{%- set text_tokens = 'turns.n_tokens' if 'n_tokens' in turn_columns else 'cast(null as integer)' -%}
{%- set translation_tokens = 'turns.n_tokens_translation' if 'n_tokens_translation' in turn_columns else 'cast(null as integer)' -%}

with

conversations as (
    select * from {{ ref('conversations') }}
    where corpus = 'recllmsim'
),

turns as (
    select * from {{ ref('turns') }}
    where corpus = 'recllmsim'
),

-- conversation-level ratings, one mean per conversation, rater kind and aspect
conversation_quality as (
    select * from {{ ref('conversation_quality') }}
    where corpus = 'recllmsim'
        and not is_overall
),

-- the scripts tokenise the Chinese text: an LLM-agent file's content_zh (the turn's
-- translation), a human file's content (the text)
turn_tokens as (
    select
        turns.conversation_id,
        turns.role,
        case
            when turns.text_translation is not null then {{ translation_tokens }}
            else {{ text_tokens }}
        end as n_tokens
    from turns
),

conversation_tokens as (
    select
        conversation_id,
        -- bigint on every engine (DuckDB's sum of integers is a hugeint, Spark's a bigint)
        cast(coalesce(sum(case when role = 'user' then n_tokens end), 0) as bigint) as n_user_tokens,
        cast(coalesce(sum(case when role = 'system' then n_tokens end), 0) as bigint) as n_assistant_tokens,
        -- the sums are used only when every turn has a count
        count(*) = count(n_tokens) as is_fully_tokenised
    from turn_tokens
    group by conversation_id
),

-- the three assistant-quality aspects on 0..2: the LLM judge's rating (LLM-agent files) or the
-- human's questionnaire answer (statistics/assistant_quality.py maps Detail, Availability,
-- Diversity to these); the two simulation-quality aspects of the LLM judge
conversation_scores as (
    select
        conversation_id,
        avg(case when aspect in ('Detail Level', 'questionnaire:Detail') then mean_value end) as detail_level,
        avg(case when aspect in ('Practical Usefulness', 'questionnaire:Availability') then mean_value end)
            as practical_usefulness,
        avg(case when aspect in ('Diversity', 'questionnaire:Diversity') then mean_value end) as diversity,
        avg(case when aspect = 'Preference Alignment' then mean_value end) as preference_alignment,
        avg(case when aspect = 'Role-Playing Completeness' then mean_value end) as role_playing_completeness
    from conversation_quality
    group by conversation_id
),

classified as (
    select
        conversations.conversation_id,
        conversations.user_id,
        conversations.subset as release,
        -- a simulated user is a generated preference profile (LLM-agent files carry preference_id)
        case
            when {{ json_text(as_json('conversations.source_attributes'), '$.preference_id') }} is not null
                then 'agent'
            else 'human'
        end as user_side,
        conversations.domain_or_task as task,
        -- the scripts fold the LLM-agent folder 'new travel planning' into travel planning
        case
            when conversations.domain_or_task = 'new travel planning' then 'travel planning'
            else conversations.domain_or_task
        end as scenario,
        conversations.system_id as chat_model,
        conversations.task_description as task_context,
        conversations.n_turns,
        conversations.n_user_turns,
        conversations.n_system_turns,
        {{ json_text(as_json('conversations.source_attributes'), '$.preference') }} as preference
    from conversations
),

final as (
    select
        -- ids
        classified.conversation_id,
        classified.user_id,
        -- strings
        classified.release,
        classified.user_side,
        classified.task,
        classified.scenario,
        classified.chat_model,
        -- basic_statistics.py's #Profiles: the simulated preference text, or the human user folder
        case when classified.user_side = 'agent' then classified.preference else classified.user_id end
            as profile_key,
        classified.task_context,
        -- numerics
        classified.n_turns as n_messages,
        cast(floor(classified.n_turns / 2.0) as integer) as n_turns_script,
        classified.n_user_turns,
        classified.n_system_turns as n_assistant_turns,
        case when conversation_tokens.is_fully_tokenised then conversation_tokens.n_user_tokens end
            as n_user_tokens,
        case when conversation_tokens.is_fully_tokenised then conversation_tokens.n_assistant_tokens end
            as n_assistant_tokens,
        conversation_scores.detail_level,
        conversation_scores.practical_usefulness,
        conversation_scores.diversity,
        conversation_scores.preference_alignment,
        conversation_scores.role_playing_completeness
    from classified
    left join conversation_tokens
        on classified.conversation_id = conversation_tokens.conversation_id
    left join conversation_scores
        on classified.conversation_id = conversation_scores.conversation_id
)

select * from final
