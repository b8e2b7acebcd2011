"""`dbt.*` cross-database macros for sqlfluff's jinja templater (.sqlfluff): each renders the
DuckDB SQL dbt-duckdb would, close enough to lint the model around it."""


def split_part(string_text, delimiter_text, part_number):
    return f"split_part({string_text}, {delimiter_text}, {part_number})"


def concat(fields):
    return "concat(" + ", ".join(str(f) for f in fields) + ")"


def length(expression):
    return f"length({expression})"


def cast(field, type_):
    return f"cast({field} as {type_})"


def type_string():
    return "varchar"
