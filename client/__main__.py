"""``python -m client``: the terminal client (same as ``sushigo-client``)."""

import sys

from client.cli import main

sys.exit(main())
