"""Load generator with the docs/LOADGEN.md contract: `python -m jiffy.loadgen --help`.

Other clients plug in through `Driver` and `main` (see bench/).
"""

from jiffy.loadgen._harness import Driver, measure
from jiffy.loadgen._options import Options, parse_options
from jiffy.loadgen._runner import main

__all__ = ["Driver", "Options", "main", "measure", "parse_options"]
