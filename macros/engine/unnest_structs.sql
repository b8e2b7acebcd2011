{#-
    In a select list: one output row per struct of a fixed list, as one struct column (read its
    fields as alias.field): unnest_structs([{'step': '1', 'text': 'request'}, ...]) as round_text.
    Keys are field names, values SQL expressions; every struct has the same fields.
-#}
{% macro unnest_structs(structs) -%}
    {{ return(adapter.dispatch('unnest_structs', 'csrwh')(structs)) }}
{%- endmacro %}

{% macro default__unnest_structs(structs) -%}
    unnest([
        {%- for struct in structs %}
            { {%- for key, value in struct.items() %}'{{ key }}': {{ value }}{{ ", " if not loop.last }}{%- endfor %}}{{ "," if not loop.last }}
        {%- endfor %}
        ])
{%- endmacro %}

{% macro spark__unnest_structs(structs) -%}
    explode(array(
        {%- for struct in structs %}
            named_struct({%- for key, value in struct.items() %}'{{ key }}', {{ value }}{{ ", " if not loop.last }}{%- endfor %}){{ "," if not loop.last }}
        {%- endfor %}
        ))
{%- endmacro %}
