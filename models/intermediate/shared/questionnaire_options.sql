{#- Score of each questionnaire option: the union of seeds/<id>/<id>__questionnaire_options.csv. -#}

{{ corpus_lookup_union('questionnaire_options', [
    ['corpus', 'string'], ['item', 'string'], ['answer_option', 'string'], ['value', 'integer'],
    ['description', 'string'],
]) }}
