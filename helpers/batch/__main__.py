"""``python -m helpers.batch QRELS RUN [RUN ...]``: trec_eval's command and output (see helpers.batch.cli)."""

import sys

from helpers.batch.cli import main

sys.exit(main())
