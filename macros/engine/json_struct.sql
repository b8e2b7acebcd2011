{#-
    One parse of a JSON document into the fields a model needs (DuckDB's from_json with a
    structure): json_struct('payload', {'task': 'VARCHAR', 'rating': 'JSON',
    'history': [{'role': 'VARCHAR'}]}). 'VARCHAR' reads a field as text (a non-string value
    as its JSON text), 'JSON' as a JSON value; a list is an array of its one element's
    structure, a mapping an object. On Spark a 'JSON' field is in the form
    macros/engine/json_text.sql documents (a string value without its quotes).
-#}
{% macro json_struct(json_expr, structure) -%}
    {{ return(adapter.dispatch('json_struct', 'csrwh')(json_expr, structure)) }}
{%- endmacro %}

{% macro default__json_struct(json_expr, structure) -%}
    from_json({{ json_expr }}, '{{ tojson(structure) }}')
{%- endmacro %}

{% macro spark__json_struct(json_expr, structure) -%}
    from_json({{ json_expr }}, '{{ csrwh_spark_json_schema(structure) }}')
{%- endmacro %}

{#- A json_struct structure as a Spark DDL type. -#}
{% macro csrwh_spark_json_schema(structure) -%}
    {%- if structure is mapping -%}
        struct<{%- for key, value in structure.items() %}`{{ key }}`: {{ csrwh_spark_json_schema(value) }}{{ ", " if not loop.last }}{%- endfor %}>
    {%- elif structure is string -%}
        string
    {%- else -%}
        array<{{ csrwh_spark_json_schema(structure[0]) }}>
    {%- endif -%}
{%- endmacro %}
