{#- The kinds of item each corpus declares: the union of seeds/<id>/<id>__item_kinds.csv. -#}

{{ corpus_lookup_union('item_kinds', [
    ['corpus', 'string'], ['item_kind', 'string'], ['description', 'string'],
]) }}
