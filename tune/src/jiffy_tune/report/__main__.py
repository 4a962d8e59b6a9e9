"""`python -m jiffy_tune.report RUN_DIR`: render the report again from RUN_DIR/results.json.

Useful after an interrupted run, or to see a saved run with a newer report layout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from jiffy_tune.jsonfields import FieldError
from jiffy_tune.report import write_report
from jiffy_tune.results import RESULTS_FILE, load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m jiffy_tune.report",
        description="Render report.md, report.html and charts/ from a run's results.json.",
    )
    parser.add_argument("run_dir", type=Path, help="folder holding results.json")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder to write the report into (default: RUN_DIR)",
    )
    args = parser.parse_args(argv)
    results_path = args.run_dir / RESULTS_FILE
    try:
        results = load(results_path)
    except FileNotFoundError:
        print(f"error: {results_path} not found", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: {results_path} is not valid JSON: {exc}", file=sys.stderr)
        return 2
    except FieldError as exc:
        print(f"error: {results_path}: {exc}", file=sys.stderr)
        return 2
    files = write_report(args.out or args.run_dir, results)
    print(f"report: {files.html}")
    print(f"        {files.markdown}")
    print(f"charts: {len(files.charts)} in {files.html.parent / 'charts'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
