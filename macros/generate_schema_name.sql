{#-
    Custom schemas are used as-is (staging, intermediate, seeds) instead of dbt's default
    `<target schema>_<custom schema>`; marts land in the target schema (`main`).
-#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
