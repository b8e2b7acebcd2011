-- dbt.split_part over literal cases (what the marts split: corpus ids on ':', scale keys on
-- '/', RecLLMSim profile attributes on ' and '): returns failing cases. On Spark this fails
-- with dbt-spark's own split_part (its '\\' escape is two backslashes under
-- spark.sql.parser.escapedStringLiterals, so nothing was split); macros/engine/split_part.sql.
-- Past the last part: NULL, as dbt-duckdb's split_part gives (Spark's own gives '').
with

cases as (
    select * from (
        values
            ('recllmsim:LLM_agent_user/travel/1', ':', 1, 'recllmsim'),
            ('cosrec:CoSRec-Crowd_4', ':', 2, 'CoSRec-Crowd_4'),
            ('recoreact/rating_1', '/', 1, 'recoreact'),
            ('Daily Interests and Hobbies', ' and ', 1, 'Daily Interests'),
            ('Occupation', ' and ', 1, 'Occupation'),
            ('a.b|c', '.', 1, 'a'),
            ('a.b|c', '|', 2, 'c'),
            ('no delimiter', ':', 2, null)
    ) as t (text, delimiter, part, expected)
)

select
    text,
    delimiter,
    part,
    expected
from cases
where
    {{ dbt.split_part('text', "':'", 1) }} is distinct from expected and delimiter = ':' and part = 1
    or {{ dbt.split_part('text', "':'", 2) }} is distinct from expected and delimiter = ':' and part = 2
    or {{ dbt.split_part('text', "'/'", 1) }} is distinct from expected and delimiter = '/' and part = 1
    or {{ dbt.split_part('text', "' and '", 1) }} is distinct from expected and delimiter = ' and ' and part = 1
    or {{ dbt.split_part('text', "'.'", 1) }} is distinct from expected and delimiter = '.' and part = 1
    or {{ dbt.split_part('text', "'|'", 2) }} is distinct from expected and delimiter = '|' and part = 2
