"""``python -m csrwh.report``."""

import sys

from csrwh.report.runner import main

sys.exit(main())
