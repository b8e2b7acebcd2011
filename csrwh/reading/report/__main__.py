"""``python -m csrwh.reading.report``."""

import sys

from csrwh.reading.report.runner import main

sys.exit(main())
