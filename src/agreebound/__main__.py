"""``python -m agreebound``: the command line, as the ``agreebound`` script runs it."""

import sys

from agreebound.cli.main import main

sys.exit(main())
