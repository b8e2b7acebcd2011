{#- An empty list of text, e.g. to coalesce a missing list of labels to. -#}
{% macro empty_text_list() -%}
    {{ return(adapter.dispatch('empty_text_list', 'csrwh')()) }}
{%- endmacro %}

{% macro default__empty_text_list() -%}
    []
{%- endmacro %}

{% macro spark__empty_text_list() -%}
    cast(array() as array<string>)
{%- endmacro %}
