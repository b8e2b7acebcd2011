{#-
    The digest of one corpus's rows, an aggregate over a `group by corpus`: the
    xor and the count of the rows' md5s, each row's `columns` taken as text in a JSON list
    (NULL and separators unambiguous), so the order of the rows does not count. The SQL twin of
    csrwh.dbt_support.partitions.corpus_digests (the Python models' per-corpus partitions), the
    same figure for the same rows (tests/unit/test_turn_text_counts.py checks it). DuckDB only:
    on Spark the incremental models are tables computed whole, and the digest is NULL.
-#}
{% macro corpus_inputs_digest(columns) -%}
    {{ return(adapter.dispatch('corpus_inputs_digest', 'csrwh')(columns)) }}
{%- endmacro %}

{% macro default__corpus_inputs_digest(columns) -%}
    bit_xor(md5_number(to_json([
        {%- for column in columns %}
        cast({{ column }} as varchar){{ "," if not loop.last }}
        {%- endfor %}
    ])))::varchar || ':' || count(*)::varchar
{%- endmacro %}

{% macro spark__corpus_inputs_digest(columns) -%}
    cast(null as string)
{%- endmacro %}
