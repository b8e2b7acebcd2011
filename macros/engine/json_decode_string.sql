{#-
    A JSON value that may be a JSON string holding JSON text (e.g. "[{...}]"): that text as JSON
    (NULL when it does not parse); any other JSON value as is. On Spark a string value already
    is its unquoted text (macros/engine/json_text.sql), which from_json then parses.
-#}
{% macro json_decode_string(json_expr) -%}
    {{ return(adapter.dispatch('json_decode_string', 'csrwh')(json_expr)) }}
{%- endmacro %}

{% macro default__json_decode_string(json_expr) -%}
    case
                when json_type({{ json_expr }}) = 'VARCHAR'
                    then try_cast({{ json_expr }} ->> '$' as json)
                else {{ json_expr }}
            end
{%- endmacro %}

{% macro spark__json_decode_string(json_expr) -%}
    ({{ json_expr }})
{%- endmacro %}
