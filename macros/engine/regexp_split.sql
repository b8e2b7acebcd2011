{#- A text split on a regular expression into a list: regexp_split('trim(source_text)', '\s+'). -#}
{% macro regexp_split(text, pattern) -%}
    {{ return(adapter.dispatch('regexp_split', 'csrwh')(text, pattern)) }}
{%- endmacro %}

{% macro default__regexp_split(text, pattern) -%}
    regexp_split_to_array({{ text }}, '{{ pattern }}')
{%- endmacro %}

{% macro spark__regexp_split(text, pattern) -%}
    split({{ text }}, '{{ pattern }}', -1)
{%- endmacro %}
