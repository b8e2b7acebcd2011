-- conformed_union keeps the requested columns, in order, from every relation.
with

unioned as (
    {{ conformed_union(
        relations=[
            "(select 1 as a_value, 'x' as b_value, 99 as ignored)",
            "(select 'y' as b_value, 2 as a_value)",
        ],
        columns=['a_value', 'b_value'],
    ) }}
),

expected as (
    select * from (values (1, 'x'), (2, 'y')) as expected_rows (a_value, b_value)
),

differences as (
    (select * from unioned except select * from expected)
    union all
    (select * from expected except select * from unioned)
)

select * from differences
