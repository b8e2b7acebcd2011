{#-
    What the marts read from the corpus registry (ingest/corpora.toml), through the generated
    macros/generated/corpus_registry.sql (scripts/corpora_seed.py renders it). The lists are
    static at parse time, so the refs below are dbt lineage like literal ones.
-#}

{#- The refs of the int_<id>__<mart>_conformed models of one core mart, in registry order. -#}
{% macro conformed_relations(mart) -%}
    {%- set by_mart = conformed_corpora_by_mart() -%}
    {%- if mart not in by_mart -%}
        {{ exceptions.raise_compiler_error("conformed_relations: unknown mart '" ~ mart ~ "' (scripts/corpora_seed.py MARTS)") }}
    {%- endif -%}
    {%- set relations = [] -%}
    {%- for corpus in by_mart[mart] -%}
        {%- do relations.append(ref('int_' ~ corpus ~ '__' ~ mart ~ '_conformed')) -%}
    {%- endfor -%}
    {{ return(relations) }}
{%- endmacro %}

{#-
    `union all` of the per-corpus lookup seeds seeds/<id>/<id>__<lookup>.csv of every corpus
    that has one, each column cast to its type (`columns`: [[name, type], ...], in output
    order): a small seed's inferred types never change the lookup's. No seed at all: an empty
    relation with those columns.
-#}
{% macro corpus_lookup_union(lookup, columns) -%}
    {%- set by_lookup = corpus_seeds_by_lookup() -%}
    {%- if lookup not in by_lookup -%}
        {{ exceptions.raise_compiler_error("corpus_lookup_union: unknown lookup '" ~ lookup ~ "' (scripts/corpora_seed.py SHARED_SEEDS)") }}
    {%- endif -%}
    {%- set relations = [] -%}
    {%- for corpus in by_lookup[lookup] -%}
        {%- do relations.append(ref(corpus ~ '__' ~ lookup)) -%}
    {%- endfor -%}
    {{ union_cast(relations, columns) }}
{%- endmacro %}

{#-
    `union all` of the corpora's own lookup models models/intermediate/<id>/int_<id>__<lookup>
    (rows a seed cannot hold, e.g. the scales each custom corpus declares in its corpus.json),
    `columns` ([[name, type], ...]) selected and cast in order. No such model: an empty relation
    with those columns.
-#}
{% macro corpus_lookup_models_union(lookup, columns) -%}
    {%- set by_lookup = corpus_models_by_lookup() -%}
    {%- if lookup not in by_lookup -%}
        {{ exceptions.raise_compiler_error("corpus_lookup_models_union: unknown lookup '" ~ lookup ~ "' (scripts/corpora_seed.py OWN_LOOKUPS)") }}
    {%- endif -%}
    {%- set relations = [] -%}
    {%- for corpus in by_lookup[lookup] -%}
        {%- do relations.append(ref('int_' ~ corpus ~ '__' ~ lookup)) -%}
    {%- endfor -%}
    {{ union_cast(relations, columns) }}
{%- endmacro %}

{#-
    `union all` of `relations`, `columns` ([[name, type], ...]) selected and cast in order; no
    relation: an empty relation with those columns (the body of both lookup unions above).
-#}
{% macro union_cast(relations, columns) -%}
    {%- for relation in relations %}
    select
        {%- for name, type in columns %}
        cast({{ name }} as {{ type }}) as {{ name }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ relation }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- else %}
    select
        {%- for name, type in columns %}
        cast(null as {{ type }}) as {{ name }}{{ "," if not loop.last }}
        {%- endfor %}
    where false
    {%- endfor %}
{%- endmacro %}
