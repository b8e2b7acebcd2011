{#-
    The CTEs `measures` (recllmsim_conversation_measures: each RecLLMSim conversation's user
    side, release, task, user and quality scores) and `labels` (its final user-behaviour labels,
    `behaviour_labels.is_final`, as the user_behavior/ scripts count them) that the per-label
    reports join on conversation_id.
-#}
{% macro recllmsim_final_labels() %}
measures as (
    select * from {{ ref('recllmsim_conversation_measures') }}
),

labels as (
    select * from {{ ref('behaviour_labels') }}
    where corpus = 'recllmsim'
        and is_final
)
{% endmacro %}
