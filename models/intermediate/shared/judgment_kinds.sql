{#- Grade scale of every judgment kind per corpus: the union of seeds/<id>/<id>__judgment_kinds.csv. -#}

{{ corpus_lookup_union('judgment_kinds', [
    ['corpus', 'string'], ['judgment_kind', 'string'], ['grade_min', 'integer'], ['grade_max', 'integer'],
    ['is_implicit', 'boolean'], ['description', 'string'],
]) }}
