"""``python -m agreebound``: the command line, as the ``agreebound`` script runs it."""

import sys

from agreebound.cli import main

sys.exit(main())
