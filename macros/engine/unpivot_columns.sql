{#-
    The rows of a relation with the given columns turned into (name, value) rows, NULL values
    dropped (both engines' default), the other columns kept in front:
    unpivot_columns('impression_ratings', ['rating1', 'rating2'], 'aspect', 'value').
-#}
{% macro unpivot_columns(relation, columns, name, value) -%}
    {{ return(adapter.dispatch('unpivot_columns', 'csrwh')(relation, columns, name, value)) }}
{%- endmacro %}

{% macro default__unpivot_columns(relation, columns, name, value) -%}
    unpivot {{ relation }}
    on {{ columns | join(', ') }}
    into name {{ name }} value {{ value }}
{%- endmacro %}

{% macro spark__unpivot_columns(relation, columns, name, value) -%}
    select *
    from {{ relation }}
    unpivot ({{ value }} for {{ name }} in ({{ columns | join(', ') }}))
{%- endmacro %}
