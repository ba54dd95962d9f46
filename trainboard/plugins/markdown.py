"""Markdown from users → HTML that is safe to put in a page, with TensorBoard's allowed tags and attributes."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence

from trainboard.plugins._bleach_escapes import drop_set_aside, sanitise

ALLOWED_TAGS = {
    *("ul", "ol", "li", "p", "pre", "code", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "br"),
    *("strong", "em", "a", "img", "table", "thead", "tbody", "td", "tr", "th"),
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "title", "alt"}}
# bleach's default, which TensorBoard keeps; relative URLs pass.
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


class _Converters:
    """Python-Markdown as TensorBoard uses it (not safe to share between threads), and nh3 set up to clean as
    TensorBoard's bleach does. Tags that are not allowed are escaped (shown as text), not dropped."""

    def __init__(self) -> None:
        # Imported on first use: loading them costs a tenth of a second of server start.
        import markdown
        import nh3

        self.markdown = markdown.Markdown(extensions=["markdown.extensions.tables", "markdown.extensions.fenced_code"])
        self.cleaner = nh3.Cleaner(
            tags=ALLOWED_TAGS,
            clean_content_tags=set(),
            attributes=ALLOWED_ATTRIBUTES,
            attribute_filter=drop_set_aside,
            url_schemes=ALLOWED_URL_SCHEMES,
            link_rel=None,
            strip_comments=True,
        )


_per_thread = threading.local()


def _converters() -> _Converters:
    converters: _Converters | None = getattr(_per_thread, "converters", None)
    if converters is None:
        converters = _per_thread.converters = _Converters()
    return converters


def safe_html(unsafe: str) -> str:
    return sanitise(unsafe, ALLOWED_TAGS, _converters().cleaner.clean)


@functools.lru_cache(maxsize=4096)
def markdown_to_safe_html(source: str | bytes) -> str:
    """Cached: the same descriptions come back on every listing. Most are empty: those need no converter (whose
    set-up costs a tenth of a second of the first listing)."""
    if not source:
        return ""
    return markdowns_to_safe_html([source], lambda htmls: htmls[0])


def markdowns_to_safe_html(sources: Sequence[str | bytes], combine: Callable[[list[str]], str]) -> str:
    """Render each source, combine the HTML, sanitise the whole; NUL bytes in byte input are dropped with a note."""
    htmls = []
    null_bytes = 0
    for source in sources:
        if isinstance(source, bytes):
            decoded = source.decode("utf-8", errors="replace")
            source = decoded.replace("\x00", "")
            null_bytes += len(decoded) - len(source)
        htmls.append(_converters().markdown.reset().convert(source))
    sanitised = safe_html(combine(htmls))
    if null_bytes:
        warning = f"<!-- WARNING: discarded {null_bytes} null bytes in markdown string after UTF-8 decoding -->\n"
        return warning + sanitised
    return sanitised
