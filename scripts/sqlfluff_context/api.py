"""`api.*` for sqlfluff's jinja templater."""


class Column:
    @staticmethod
    def translate_type(dtype):
        return str(dtype).lower()
