"""`python -m jiffy.loadgen`: drive jiffy-server through this SDK."""

import sys

from jiffy.loadgen._jiffy_driver import JiffyDriver
from jiffy.loadgen._runner import main

sys.exit(main(JiffyDriver, description="Load generator for the jiffy Python SDK"))
