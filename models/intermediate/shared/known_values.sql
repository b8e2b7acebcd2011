{#- Known values of the open vocabularies without a seed of their own: the union of seeds/<id>/<id>__known_values.csv. -#}

{{ corpus_lookup_union('known_values', [
    ['vocabulary', 'string'], ['corpus', 'string'], ['value', 'string'], ['detail', 'string'],
    ['description', 'string'],
]) }}
