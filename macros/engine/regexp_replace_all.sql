{#- Every match of a regular expression replaced: regexp_replace_all('text', '^\s+|\s+$', ''). -#}
{% macro regexp_replace_all(text, pattern, replacement) -%}
    {{ return(adapter.dispatch('regexp_replace_all', 'csrwh')(text, pattern, replacement)) }}
{%- endmacro %}

{% macro default__regexp_replace_all(text, pattern, replacement) -%}
    regexp_replace({{ text }}, '{{ pattern }}', '{{ replacement }}', 'g')
{%- endmacro %}

{% macro spark__regexp_replace_all(text, pattern, replacement) -%}
    regexp_replace({{ text }}, '{{ pattern }}', '{{ replacement }}')
{%- endmacro %}
