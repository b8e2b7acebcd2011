{#- One row per relevance judgment of every corpus that has them, placed on its kind's grade scale: the corpus' own lookup model when it has one (own corpora: their corpus.json), else the judgment_kinds seed. -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('relevance_judgments'),
        columns=[
            'judgment_id', 'collection', 'corpus', 'topic_id', 'doc_id', 'item_id', 'conversation_id',
            'turn_index', 'intent_id', 'user_index', 'user_id', 'grade', 'judgment_kind',
        ],
    ) }}
),

corpus_kinds as (
    select corpus, judgment_kind, grade_min, grade_max, is_implicit
    from {{ ref('judgment_kinds') }}
),

-- kinds a corpus declares for a part of itself in its own model int_<id>__judgment_kinds
-- (registry-driven; e.g. each own corpus' corpus.json), keyed by collection; they take
-- precedence over the corpus' seed
own_kinds as (
    {{ corpus_lookup_models_union('judgment_kinds', [
        ['collection', 'string'], ['judgment_kind', 'string'], ['grade_min', 'integer'],
        ['grade_max', 'integer'], ['is_implicit', 'boolean'],
    ]) }}
),

scaled as (
    select
        unioned.*,
        coalesce(own_kinds.grade_min, corpus_kinds.grade_min) as grade_min,
        coalesce(own_kinds.grade_max, corpus_kinds.grade_max) as grade_max,
        coalesce(own_kinds.is_implicit, corpus_kinds.is_implicit) as is_implicit
    from unioned
    left join own_kinds
        on unioned.collection = own_kinds.collection
        and unioned.judgment_kind = own_kinds.judgment_kind
    left join corpus_kinds
        on unioned.corpus = corpus_kinds.corpus
        and unioned.judgment_kind = corpus_kinds.judgment_kind
),

final as (
    select
        -- ids
        judgment_id,
        topic_id,
        intent_id,
        conversation_id,
        turn_index,
        user_index,
        user_id,
        doc_id,
        item_id,
        -- numerics and strings of the judgment
        cast(grade as integer) as grade,
        judgment_kind,
        collection,
        corpus,
        cast(grade_min as integer) as grade_min,
        cast(grade_max as integer) as grade_max,
        -- booleans
        is_implicit
    from scaled
)

select * from final
