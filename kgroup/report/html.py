"""What the report and the fleet page share: escaping, tables, the embedded data, the page frame,
and a plotly figure as a ``<div>`` with its script (plotly.js inlined once per page: its official
"basic" partial bundle, scatter and bar traces only, 1.2 MB where plotly's full bundle is 4.8 MB;
scripts/setup.sh fetches it into .cache/, :func:`plotlyjs` finds it).

Every string that reaches the page goes through :func:`esc` (HTML text and attributes) or
:func:`chart_text` (text plotly draws: plotly reads a small set of tags and the entities in it, so
``<`` is written ``&lt;`` and shown as ``<``). Nothing on the page is loaded from anywhere: no
link, no font, no image; the styles use the fonts the machine has.
"""
from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any

from kgroup.timeutil import format_ms

MISSING = "-"

CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 1.5em;
       color: #1d2330; background: #fff; font-size: 14px; overflow-wrap: anywhere; }
@media (max-width: 600px) { body { margin: .6em; } }
h1 { font-size: 1.5em; margin: 0 0 .3em 0; }
h2 { font-size: 1.2em; margin: 1.6em 0 .5em 0; border-bottom: 1px solid #d0d5df; padding-bottom: .2em; }
h3 { font-size: 1em; margin: 1.2em 0 .4em 0; }
.scroll { overflow-x: auto; max-width: 100%; margin: .3em 0 1em 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d5df; padding: .2em .5em; text-align: left; vertical-align: top;
         font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px;
         overflow-wrap: normal; }
th { background: #eef1f6; }
td.num { text-align: right; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15em 1em; margin: .5em 0; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; font-family: ui-monospace, monospace; }
.warnings { background: #fff6e0; border: 1px solid #e8c66a; padding: .5em 1em; }
.incomplete { background: #fde7e7; border: 1px solid #e08a8a; padding: .5em 1em; font-weight: 600; }
.note { color: #566074; }
.status-OK { color: #1b7f3b; } .status-WARN { color: #a66a00; font-weight: 600; }
.status-ERR, .status-STOP, .status-STALL, .status-REWIND { color: #b3261e; font-weight: 700; }
.chart { width: 100%; max-width: 100%; overflow: hidden; }
"""


def esc(value: Any) -> str:
    """A value as page text: None as ``-``, booleans yes/no, everything else escaped."""
    if value is None or value == "":
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    return html.escape(str(value), quote=True)


def chart_text(value: Any) -> str:
    """A string for plotly to draw (a trace name, hover text) shown as it is, tags included."""
    return html.escape("-" if value is None else str(value), quote=False)


def chart_time(ms: float) -> str:
    """A moment as plotly's date axes take it without a doubt (UTC, to the millisecond): a bare
    number below 10000 would be read as a year."""
    return format_ms(int(ms)).replace("T", " ").rstrip("Z")


def embed_json(document: Any, element_id: str) -> str:
    """``document`` as a JSON data block the page's scripts and tests can read; ``<``, ``>`` and
    ``&`` are escaped so no string in it can end the block."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    for raw, safe in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"), ("\u2028", "\\u2028"),
                      ("\u2029", "\\u2029")):
        text = text.replace(raw, safe)
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str | None = None,
          notes: Iterable[str] = (), element_id: str | None = None) -> str:
    """An HTML table; numbers right-aligned, a ``status-X`` class on cells holding a status."""
    out = []
    if title:
        out.append(f"<h3>{esc(title)}</h3>")
    ident = f' id="{esc(element_id)}"' if element_id else ""
    out.append(f'<div class="scroll"><table{ident}><thead><tr>' + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr></thead><tbody>")
    for row in rows:
        cells = []
        for v in row:
            cls = ""
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                cls = ' class="num"'
            elif isinstance(v, str) and v in ("OK", "WARN", "ERR", "STOP", "STALL", "REWIND"):
                cls = f' class="status-{v}"'
            cells.append(f"<td{cls}>{esc(v)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    out.extend(f'<p class="note">{esc(n)}</p>' for n in notes)
    return "\n".join(out)


def facts(pairs: Iterable[tuple[str, Any]]) -> str:
    return '<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in pairs) + "</dl>"


def frame(title: str, body: str) -> str:
    """The whole page."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


class Charts:
    """plotly figures as page fragments: the first carries plotly.js's basic bundle, inlined
    (kgroup.report.require_plotly finds it)."""

    def __init__(self) -> None:
        self.js_written = False

    def div(self, fig: Any, element_id: str) -> str:
        import plotly.io as pio

        from kgroup.report import bundle_text

        fragment: str = pio.to_html(fig, include_plotlyjs=False, full_html=False, div_id=element_id,
                                    include_mathjax=False, validate=False,
                                    config={"displaylogo": False, "responsive": True})
        if not self.js_written:
            script = bundle_text()
            if "</script" in script.lower():  # would end the inline script early
                raise ValueError("plotly.js's bundle holds </script>: cannot be inlined")
            fragment = f'<script type="text/javascript">{script}</script>\n{fragment}'
            self.js_written = True
        return f'<div class="chart">{fragment}</div>'
