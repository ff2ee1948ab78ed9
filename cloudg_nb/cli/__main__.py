"""``python -m cloudg_nb.cli`` runs the ``cloudg-nb`` console script."""

import sys

from . import main

sys.exit(main())
