"""``python -m cloudg_nb`` runs the ``cloudg-nb`` console script."""

import sys

from .cli import main

sys.exit(main())
