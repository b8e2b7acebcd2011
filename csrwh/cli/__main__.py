"""``python -m csrwh.cli``: the same as the ``csrwh`` command."""

from csrwh.cli import main

main()
