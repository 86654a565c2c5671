"""``python -m recorders info|steps|route FILE`` (see :mod:`recorders.cli`)."""

import sys

from recorders.cli import main

sys.exit(main())
