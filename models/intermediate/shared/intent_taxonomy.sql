{#- Every known raw intent label mapped to its family: the union of seeds/<id>/<id>__intent_taxonomy.csv. -#}

{{ corpus_lookup_union('intent_taxonomy', [
    ['label_scheme', 'string'], ['raw_label', 'string'], ['intent_family', 'string'],
    ['description', 'string'],
]) }}
