{#- A struct of columns, each field named after its column: struct_of(['conversation_id',
    'turn_index']). Structs compare field by field, so min() of them takes all the fields of
    one row (the least); read a field as `alias.column.field`. -#}
{% macro struct_of(columns) -%}
    {{ return(adapter.dispatch('struct_of', 'csrwh')(columns)) }}
{%- endmacro %}

{% macro default__struct_of(columns) -%}
    struct_pack({{ columns | join(', ') }})
{%- endmacro %}

{% macro spark__struct_of(columns) -%}
    struct({{ columns | join(', ') }})
{%- endmacro %}
