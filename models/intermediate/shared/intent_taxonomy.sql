{#- Every known raw intent label mapped to its family: the union of seeds/<id>/<id>__intent_taxonomy.csv. -#}

{{ corpus_lookup_union('intent_taxonomy', [
    ['label_scheme', 'varchar'], ['raw_label', 'varchar'], ['intent_family', 'varchar'],
    ['description', 'varchar'],
]) }}
