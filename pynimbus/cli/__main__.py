"""``python -m pynimbus.cli``: the ``pynimbus`` command, for where the console script is not on
the PATH."""

import sys

from pynimbus.cli.main import main

sys.exit(main())
