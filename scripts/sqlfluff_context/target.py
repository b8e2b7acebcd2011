"""`target.*` for sqlfluff's jinja templater."""

schema = "main"
