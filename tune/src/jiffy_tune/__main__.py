import sys

from jiffy_tune.cli import main

sys.exit(main())
