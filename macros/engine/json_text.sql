{#-
    Spark implementation of json_text (macros/json.sql). On Spark a JSON value is its text as
    `->> '$'` gives it in DuckDB: an object or array as JSON text, a string without its quotes
    (what get_json_object and from_json(..., 'array<string>' / 'map<string,string>') return).
    So json_text(x, '$') is x itself, and a path is read with get_json_object. A DuckDB path
    key in double quotes ($."conversation ID") becomes Spark's bracket form ($['conversation ID']),
    written as a double-quoted literal (single quotes cannot be escaped under
    spark.sql.parser.escapedStringLiterals).
-#}
{% macro spark__json_text(json_expr, path='$') -%}
    {%- if path == '$' -%}
        ({{ json_expr }})
    {%- else -%}
        get_json_object({{ json_expr }}, {{ csrwh_spark_json_path(path) }})
    {%- endif -%}
{%- endmacro %}

{#- A DuckDB JSONPath as a Spark get_json_object path literal. -#}
{% macro csrwh_spark_json_path(path) -%}
    {%- set spark_path = modules.re.sub('\\."([^"]+)"', "['\\1']", path) -%}
    {%- if "'" in spark_path -%}
        "{{ spark_path }}"
    {%- else -%}
        '{{ spark_path }}'
    {%- endif -%}
{%- endmacro %}
