"""``python -m csrwh.sample.custom_scale``: see the package docstring."""

from csrwh.sample.custom_scale import main

raise SystemExit(main())
