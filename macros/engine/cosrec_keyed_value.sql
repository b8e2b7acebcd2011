{#- Spark implementation of cosrec_keyed_value (macros/cosrec_keyed_value.sql): the first value of the object. -#}
{% macro spark__cosrec_keyed_value(payload) -%}
    element_at(map_values(from_json({{ payload }}, 'map<string,string>')), 1)
{%- endmacro %}
