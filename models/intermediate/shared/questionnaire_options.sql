{#- Score of each questionnaire option: the union of seeds/<id>/<id>__questionnaire_options.csv. -#}

{{ corpus_lookup_union('questionnaire_options', [
    ['corpus', 'varchar'], ['item', 'varchar'], ['answer_option', 'varchar'], ['value', 'integer'],
    ['description', 'varchar'],
]) }}
