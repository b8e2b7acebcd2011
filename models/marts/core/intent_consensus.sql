{#-
    One row per labelled turn and label scheme: the intent family most annotators gave
    (primary labels), and the share of annotators who gave it. Ties go to the
    alphabetically first family, so the result is deterministic.
-#}

with

intents as (
    select * from {{ ref('intents') }}
),

annotator_families as (
    select distinct
        conversation_id,
        turn_index,
        label_scheme,
        annotator,
        intent_family
    from intents
    where is_primary
),

annotators_per_turn as (
    select
        conversation_id,
        turn_index,
        label_scheme,
        count(distinct annotator) as n_annotators
    from annotator_families
    group by conversation_id, turn_index, label_scheme
),

family_votes as (
    select
        conversation_id,
        turn_index,
        label_scheme,
        intent_family,
        count(distinct annotator) as n_agreeing
    from annotator_families
    group by conversation_id, turn_index, label_scheme, intent_family
),

ranked as (
    select
        *,
        row_number() over (
            partition by conversation_id, turn_index, label_scheme
            order by n_agreeing desc, intent_family
        ) as family_rank
    from family_votes
),

final as (
    select
        -- ids
        ranked.conversation_id,
        -- strings
        {{ dbt.split_part("ranked.conversation_id", "':'", 1) }} as corpus,
        ranked.label_scheme,
        ranked.intent_family as majority_family,
        -- numerics
        ranked.turn_index,
        cast(annotators_per_turn.n_annotators as integer) as n_annotators,
        cast(ranked.n_agreeing as integer) as n_agreeing,
        cast(ranked.n_agreeing as double) / annotators_per_turn.n_annotators as agreement_share,
        -- booleans
        ranked.n_agreeing = annotators_per_turn.n_annotators as is_unanimous
    from ranked
    inner join annotators_per_turn
        on ranked.conversation_id = annotators_per_turn.conversation_id
        and ranked.turn_index = annotators_per_turn.turn_index
        and ranked.label_scheme = annotators_per_turn.label_scheme
    where ranked.family_rank = 1
)

select * from final
