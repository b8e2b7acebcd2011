{#- Scale of every known rating aspect per corpus: the union of seeds/<id>/<id>__rating_scales.csv. -#}

{{ corpus_lookup_union('rating_scales', [
    ['corpus', 'string'], ['aspect', 'string'], ['scale_min', 'integer'], ['scale_max', 'integer'],
    ['higher_is_better', 'boolean'], ['level', 'string'], ['description', 'string'],
]) }}
