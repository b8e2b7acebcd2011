{#-
    Union the per-corpus conformed models of one mart, selecting `columns` explicitly and in
    order from each relation, so a new JSON field can never leak into a mart and column
    order mistakes fail loudly. `relations` are refs (or any relation / subquery text).
-#}
{% macro conformed_union(relations, columns) -%}
    {%- for relation in relations %}
    select
        {%- for column in columns %}
        {{ column }}{{ "," if not loop.last }}
        {%- endfor %}
    from {{ relation }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}
