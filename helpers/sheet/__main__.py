"""``python -m helpers.sheet C example_c.xlsx``: save an example as a spreadsheet."""

import sys

from helpers.sheet.xlsx import main

sys.exit(main())
