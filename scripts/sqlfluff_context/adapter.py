"""`adapter.*` for sqlfluff's jinja templater: a dispatched macro renders as a call of the
same name with its arguments as SQL literals (the macro's own SQL is linted in macros/)."""


def _literal(value):
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return str(value)


def dispatch(macro_name, macro_namespace=None):
    def call(*args, **kwargs):
        return f"{macro_name}(" + ", ".join(_literal(a) for a in args) + ")"

    return call


def get_columns_in_relation(relation):
    return []


def quote(identifier):
    return f'"{identifier}"'
