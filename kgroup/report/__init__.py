"""The incident report (``kgroup report``) and the fleet page (``kgroup scan --html``): one
self-contained HTML page each.

``data`` builds the report's document (pure: the same document ``-o json`` prints and the page
embeds); ``page`` and ``fleet`` draw the pages with plotly, which only they import, and only when a
page is written; ``html`` holds what both pages share (escaping, tables, the embedded data).
"""
from __future__ import annotations

EXTRA = "report"


def require_plotly() -> None:
    """Raise the one-line usage error naming the extra when plotly is not installed."""
    from kgroup.errors import UsageError

    try:
        import plotly  # noqa: F401
    except ImportError:
        raise UsageError(f"the HTML page needs plotly: pip install 'kgroup[{EXTRA}]'") from None
