{#- Whether a regular expression matches anywhere in a text: regexp_contains('line_text', '^\s*U:'). -#}
{% macro regexp_contains(text, pattern) -%}
    {{ return(adapter.dispatch('regexp_contains', 'csrwh')(text, pattern)) }}
{%- endmacro %}

{% macro default__regexp_contains(text, pattern) -%}
    regexp_matches({{ text }}, '{{ pattern }}')
{%- endmacro %}

{% macro spark__regexp_contains(text, pattern) -%}
    rlike({{ text }}, '{{ pattern }}')
{%- endmacro %}
