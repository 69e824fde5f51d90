"""What the CLDR generators share: the Babel version they are pinned to, and reading Babel's data.

The generators (generate-plural-rules.py, generate-parent-locales.py) import this module from their own
folder, so they run as `python3 Tools/<generator>.py` without installing anything but Babel.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# The one place to change when moving to a newer Babel (and so a newer CLDR).
EXPECTED_BABEL_VERSION = "2.19.0"


def fail(tool: str, message: str) -> None:
    print(f"{tool}: {message}", file=sys.stderr)
    sys.exit(1)


def require_babel(tool: str):
    """The babel module, at the pinned version; stops the generator with a message otherwise."""
    try:
        import babel
    except ImportError:
        fail(tool, f"Babel is not installed: pip install babel=={EXPECTED_BABEL_VERSION}")
    if babel.__version__ != EXPECTED_BABEL_VERSION:
        fail(
            tool,
            f"found Babel {babel.__version__}, expected {EXPECTED_BABEL_VERSION}: "
            f"pip install babel=={EXPECTED_BABEL_VERSION} (or update EXPECTED_BABEL_VERSION in Tools/cldr_babel.py)",
        )
    return babel


def parent_locales() -> dict[str, str]:
    """CLDR's parentLocales: the locales whose parent is not the truncated identifier (pt_AO -> pt_PT)."""
    from babel.core import get_global

    get_global("likely_subtags")  # loads Babel's global data, which holds the parents
    from babel.core import _global_data

    return dict(_global_data["parent_exceptions"])


def write_table(description: str, default_output: Path, render) -> None:
    """Runs a generator's command line: `-o FILE` (default: the committed table), or `-o -` to print it."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "-o", "--output", default=str(default_output), help="where to write the Swift table ('-' for standard output)"
    )
    arguments = parser.parse_args()
    table = render()
    if arguments.output == "-":
        sys.stdout.write(table)
    else:
        Path(arguments.output).write_text(table, encoding="utf-8")
