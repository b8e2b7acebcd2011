{#-
    The rows of `relation` read in `n` slices by hash(`key`), one after another (union all of
    n filtered scans). For models and checks that parse whole JSON payloads: DuckDB keeps every
    parse of a chunk (up to 2,048 rows) until the chunk is done, so a scan of long lines holds
    2,048 of them parsed at once; a slice's chunk holds about 2,048 / n. hash(NULL) is a
    number, so every row is in exactly one slice. Issue 23 (the own-corpus staging; the gate's
    RecLLMSim and own-corpus checks read their payloads the same way).
-#}
{% macro in_slices(relation, key, n=8, columns='*') -%}
    (
    {%- for i in range(n) %}
        {% if not loop.first %}union all {% endif %}select {{ columns }} from {{ relation }} where hash({{ key }}) % {{ n }} = {{ i }}
    {%- endfor %}
    )
{%- endmacro %}
