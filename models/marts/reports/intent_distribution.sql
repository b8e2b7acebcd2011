{#- Per corpus, label scheme and intent family / raw label: how often each label was given. -#}

with

intents as (
    select * from {{ ref('intents') }}
),

label_counts as (
    select
        corpus,
        label_scheme,
        intent_family,
        raw_label,
        count(*) as n_labels,
        count(distinct {{ dbt.concat(["conversation_id", "':'", dbt.cast("turn_index", api.Column.translate_type("string"))]) }}) as n_turns
    from intents
    where is_primary
    group by corpus, label_scheme, intent_family, raw_label
),

scheme_totals as (
    select
        corpus,
        label_scheme,
        sum(n_labels) as n_scheme_labels
    from label_counts
    group by corpus, label_scheme
),

final as (
    select
        -- strings
        label_counts.corpus,
        label_counts.label_scheme,
        label_counts.intent_family,
        label_counts.raw_label,
        -- numerics
        cast(label_counts.n_labels as integer) as n_labels,
        cast(label_counts.n_turns as integer) as n_turns,
        cast(label_counts.n_labels as double) / scheme_totals.n_scheme_labels as share_of_labels
    from label_counts
    inner join scheme_totals
        on label_counts.corpus = scheme_totals.corpus
        and label_counts.label_scheme = scheme_totals.label_scheme
)

select * from final
