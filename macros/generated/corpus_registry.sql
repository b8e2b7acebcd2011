{#-
    generated from ingest/corpora.toml by scripts/corpora_seed.py; do not edit
    (rewrite: .venv/bin/python scripts/corpora_seed.py; tests/unit/test_corpus_registry.py
    fails while this file differs from the rendering).
-#}

{#- The registered corpus ids (the `corpus` column), in registry order. -#}
{% macro registered_corpora() -%}
    {{ return(['cosrec', 'crsarena', 'convsearch', 'recllmsim', 'recoreact', 'custom']) }}
{%- endmacro %}

{#- Per core mart, the corpora with an int_<id>__<mart>_conformed model, in order. -#}
{% macro conformed_corpora_by_mart() -%}
    {{ return({
        'conversations': ['cosrec', 'crsarena', 'convsearch', 'recllmsim', 'recoreact', 'custom'],
        'turns': ['cosrec', 'crsarena', 'convsearch', 'recllmsim', 'recoreact', 'custom'],
        'ratings': ['cosrec', 'crsarena', 'convsearch', 'recllmsim', 'recoreact', 'custom'],
        'users': ['cosrec', 'crsarena', 'convsearch', 'recllmsim', 'recoreact', 'custom'],
        'intents': ['cosrec', 'convsearch', 'recllmsim', 'custom'],
        'items': ['cosrec', 'recoreact'],
        'behaviour_labels': ['recllmsim'],
        'relevance_judgments': ['cosrec', 'convsearch', 'recoreact', 'custom'],
    }) }}
{%- endmacro %}

{#- Per shared lookup, the corpora with a seeds/<id>/<id>__<seed>.csv, in order. -#}
{% macro corpus_seeds_by_lookup() -%}
    {{ return({
        'rating_scales': ['cosrec', 'crsarena', 'convsearch', 'recllmsim', 'recoreact'],
        'intent_taxonomy': ['cosrec', 'convsearch', 'recllmsim'],
        'known_values': ['crsarena', 'recllmsim'],
        'questionnaire_options': ['recllmsim'],
        'judgment_kinds': ['cosrec', 'convsearch', 'recoreact'],
        'label_schemes': ['cosrec', 'convsearch', 'recllmsim'],
        'item_kinds': ['cosrec', 'recoreact'],
    }) }}
{%- endmacro %}

{#- Per lookup, the corpora with their own models/intermediate/<id>/int_<id>__<lookup>. -#}
{% macro corpus_models_by_lookup() -%}
    {{ return({
        'rating_scales': ['custom'],
        'judgment_kinds': ['custom'],
        'label_schemes': ['custom'],
    }) }}
{%- endmacro %}
