{#- Scale of every known rating aspect per corpus: the union of seeds/<id>/<id>__rating_scales.csv. -#}

{{ corpus_lookup_union('rating_scales', [
    ['corpus', 'varchar'], ['aspect', 'varchar'], ['scale_min', 'integer'], ['scale_max', 'integer'],
    ['higher_is_better', 'boolean'], ['level', 'varchar'], ['description', 'varchar'],
]) }}
