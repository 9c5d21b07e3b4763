"""``python -m sushigo.client``: the terminal client (same as ``sushigo-client``)."""

import sys

from sushigo.client.cli import main

sys.exit(main())
