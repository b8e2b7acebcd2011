{#-
    The rows of `relation` read in `n` slices by hash(`key`), one after another (union all of
    n filtered scans). For models and checks that parse whole JSON payloads: DuckDB keeps every
    parse of a chunk (up to 2,048 rows) until the chunk is done, so a scan of long lines holds
    2,048 of them parsed at once; a slice's chunk holds about 2,048 / n. hash(NULL) is a
    number, so every row is in exactly one slice. Used by the own-corpus staging and the gate's
    RecLLMSim and own-corpus checks. On Spark the relation
    itself: Spark streams rows through a stage and holds no chunk of parses (its hash() is a
    signed int, so `hash % n` would also leave the negative hashes in no slice).
-#}
{% macro in_slices(relation, key, n=8, columns='*') -%}
    {{ return(adapter.dispatch('in_slices', 'csrwh')(relation, key, n, columns)) }}
{%- endmacro %}

{% macro spark__in_slices(relation, key, n=8, columns='*') -%}
    (select {{ columns }} from {{ relation }})
{%- endmacro %}

{% macro default__in_slices(relation, key, n=8, columns='*') -%}
    (
    {%- for i in range(n) %}
        {% if not loop.first %}union all {% endif %}select {{ columns }} from {{ relation }} where hash({{ key }}) % {{ n }} = {{ i }}
    {%- endfor %}
    )
{%- endmacro %}
