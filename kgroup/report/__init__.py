"""The incident report (``kgroup report``) and the fleet page (``kgroup scan --html``): one
self-contained HTML page each.

``data`` builds the report's document (pure: the same document ``-o json`` prints and the page
embeds); ``page`` and ``fleet`` draw the pages with plotly, which only they import, and only when a
page is written; ``html`` holds what both pages share (escaping, tables, the embedded data).

The pages inline plotly.js's official "basic" partial bundle (npm package
``plotly.js-basic-dist-min``: scatter and bar traces, all the pages draw; 1.2 MB, where the full
bundle plotly's Python package ships is 4.8 MB), of the plotly.js version plotly's Python package
writes figures for. scripts/setup.sh fetches it into ``.cache/``; ``KGROUP_PLOTLYJS`` names another
copy of the same file. Where neither is there (kgroup installed without this checkout's set-up), the
page inlines the full bundle of plotly's Python package instead, and the command says so once: the
page is the same, only larger.
"""
from __future__ import annotations

import os
from pathlib import Path

EXTRA = "report"
BUNDLE_ENV = "KGROUP_PLOTLYJS"
CACHE = Path(__file__).resolve().parent.parent.parent / ".cache"


def bundle_name(version: str) -> str:
    """The basic bundle's file name in .cache/ (scripts/setup.sh writes it)."""
    return f"plotly-basic-{version}.min.js"


FULL_BUNDLE_NOTE = ("the page inlines plotly.js's full bundle (4.8 MB) of plotly's Python package: the basic one "
                    "(1.2 MB) is not in {where} (scripts/setup.sh fetches it)")


def require_plotly() -> Path | None:
    """plotly's Python package and the basic bundle of its plotly.js version: the bundle's path; None
    where the default one is not there (the full bundle of plotly's package is used: see
    :func:`bundle_note`); or the one-line usage error that says how to get what is missing (plotly
    itself, or a bundle named by KGROUP_PLOTLYJS that is missing or of another version)."""
    from kgroup.errors import UsageError

    try:
        import plotly  # noqa: F401  (first: plotly.offline may be loaded already)
        from plotly.offline import get_plotlyjs_version
    except ImportError:
        raise UsageError(f"the HTML page needs plotly: pip install 'kgroup[{EXTRA}]'") from None
    version = get_plotlyjs_version()
    named = os.environ.get(BUNDLE_ENV)
    path = Path(named) if named else CACHE / bundle_name(version)
    try:
        with open(path, "rb") as f:
            head = f.read(200).decode("utf-8", "replace")
    except OSError:
        if not named:
            return None
        where = f"{BUNDLE_ENV}={named}"
        raise UsageError(f"the HTML page needs plotly.js's basic bundle {version} ({where} is missing): run "
                         f"scripts/setup.sh, or set {BUNDLE_ENV} to npm's plotly.js-basic-dist-min@{version} "
                         "plotly-basic.min.js") from None
    if f"v{version}" not in head:
        raise UsageError(f"{path} is not plotly.js's basic bundle {version} (the version plotly's Python package "
                         f"draws for): run scripts/setup.sh")
    return path


def bundle_note() -> str | None:
    """The one line a command says when its page carries the full bundle (None: the basic one)."""
    if require_plotly() is not None:
        return None
    from plotly.offline import get_plotlyjs_version

    return FULL_BUNDLE_NOTE.format(where=CACHE / bundle_name(get_plotlyjs_version()))


def bundle_text() -> str:
    """The plotly.js a page inlines: the basic bundle, else the full one of plotly's package."""
    path = require_plotly()
    if path is not None:
        return path.read_text(encoding="utf-8")
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())
