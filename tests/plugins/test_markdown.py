"""The text plugin's sanitised HTML (nh3) equals TensorBoard's (bleach, with TensorBoard's allow-lists, from the
installed package) on hostile markdown and HTML."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from tensorboard import plugin_util

from trainboard.plugins.markdown import markdown_to_safe_html, markdowns_to_safe_html, safe_html

HOSTILE = [
    # Script tags, however wrapped: shown as text, never run.
    '<script>alert("x")</script> **bold**',
    '<script src="http://evil.example/x.js"></script>',
    "<SCRIPT>alert(1)</SCRIPT>",
    "<scr<script>ipt>alert(1)</script>",
    '"><script>alert(1)</script>',
    "<<script>>",
    "<svg><script>alert(1)</script></svg>",
    '<script><a href="http://x">inside</a></script>',
    "<style>body { display: none }</style>",
    "```\n<script>in a fence</script>\n```",
    "`<script>in code</script>`",
    # javascript: and other schemes TensorBoard does not allow.
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">j</a>',
    '<a href="JaVaScRiPt:alert(1)">mixed case</a>',
    '<a href="  javascript:alert(1)">leading spaces</a>',
    '<a href="java&#x09;script:alert(1)">tab reference</a>',
    '<a href="&#106;avascript:alert(1)">encoded j</a>',
    '<a href="vbscript:x">vb</a> <a href="data:text/html,x">data</a> <a href="ftp://x">ftp</a>',
    '<img src="javascript:alert(1)">',
    "![img](javascript:alert(1))",
    '<a href="http://ok.example/?a=1&b=2">ok</a> <a href="/relative">rel</a> <a href="#frag">frag</a>',
    '<a href="mailto:a@example.com">mail</a> [md](https://example.com "a title")',
    # Event handlers and other attributes off the allow-list.
    '<img src="x" onerror="alert(1)" alt="a">',
    '<p onmouseover="alert(1)">hover</p>',
    '<a href="http://x" onclick="alert(1)" target="_blank" style="color:red" title="t">t</a>',
    '<table><tr><th onclick="x">h</th></tr></table>',
    "<IMG SRC=x ONERROR=alert(1)>",
    # Nested and broken tables.
    "<table><tr><td><table><tr><td>inner</td></tr></table></td></tr></table>",
    "| a | b |\n|---|---|\n| <script>1</script> | [l](javascript:x) |\n| <table><tr><td>n</td></tr></table> | x |",
    "<td>orphan cell</td>",
    "<table><tr><td>1</td></tr><tr><td>2</td>",
    # Tags off the allow-list, comments, doctypes.
    '<iframe src="http://evil.example"></iframe><object data="x"></object><embed src="x">',
    '<form action="x"><input value="y"><button>b</button></form>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><base href="http://evil/"><link rel=x href=y>',
    '<div><span style="color:red">s</span></div><b>b</b><i>i</i>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    "<!-- a comment --> text <!-- another -- one -->",
    "<!DOCTYPE html><html><body>x</body></html>",
    "<?php echo 1 ?> after",
    "<textarea><b>t</b></textarea><title>t</title>",
    # Unfinished markup and text that looks like markup.
    "<b",
    "x <a href=x",
    "<p>unclosed",
    "</p>stray",
    "a < b > c & d AT&T &copy; &hellip; &#169; &#x41; &lt;b&gt; &unknown; &copy &amp;",
    "control \x01 characters \x07",
    '<h1 id="x">h</h1><ul><li>a<li>b</ul><pre>a\n  b</pre><blockquote>q</blockquote><br/><hr />',
]


@pytest.mark.parametrize("source", HOSTILE)
def test_markdown_is_sanitised_as_tensorboard_sanitises_it(source: str) -> None:
    assert markdown_to_safe_html(source) == plugin_util.markdown_to_safe_html(source)


@pytest.mark.parametrize("source", HOSTILE)
def test_html_is_sanitised_as_tensorboard_sanitises_it(source: str) -> None:
    assert safe_html(source) == plugin_util.safe_html(source)


def test_several_documents_are_combined_then_sanitised_as_tensorboard_does() -> None:
    def combine(htmls: list[str]) -> str:
        return "<hr>".join(htmls)

    sources: list[str | bytes] = [HOSTILE[0], HOSTILE[12].encode(), b"nul\x00bytes"]
    assert markdowns_to_safe_html(sources, combine) == plugin_util.markdowns_to_safe_html(sources, combine)


@pytest.mark.parametrize(
    ("source", "bleach", "ours"),
    [
        # bleach reads `javascript:1` as a path (Python's urlparse takes the digits for a port) and keeps it.
        ('<img src="javascript:1">', '<img src="javascript:1">', "<img>"),
        # References inside attribute values come out as the characters they stand for.
        ('<a title="&hellip; &copy;">x</a>', '<a title="&amp;hellip; &copy;">x</a>', '<a title="… ©">x</a>'),
        # A quote inside a single-quoted value: written double-quoted, the quote as a reference.
        ("<img title='q\"uote'>", "<img title='q\"uote'>", '<img title="q&quot;uote">'),
        # A table start tag inside a table closes it and opens another, as the HTML standard says.
        (
            "<table><table><td>x</td></table>",
            "<table></table>x",
            "<table></table><table><tbody><tr><td>x</td></tr></tbody></table>",
        ),
    ],
)
def test_where_nh3_differs_from_bleach(source: str, bleach: str, ours: str) -> None:
    assert plugin_util.safe_html(source) == bleach
    assert safe_html(source) == ours


@pytest.mark.parametrize(
    "source",
    [
        # Quotes where the HTML parser and a simple tag scanner disagree on where the tag ends.
        '<a x=a"b href=">&#106;avascript:alert(1)" f>x</a>',
        '<a x=a"b href="&#106;avascript:alert(1)">x</a> " &copy; >',
        # Input that holds the private-use character the sanitiser sets references aside with.
        '\ue000 <a href="\ue000#106;avascript:alert(1)">x</a> &copy;',
        '<a href="&#106;avascript:alert(1)">x</a>',
    ],
)
def test_no_javascript_url_comes_out(source: str) -> None:
    for html in (safe_html(source), markdown_to_safe_html(source)):
        urls = _Urls()
        urls.feed(html)
        assert [url for url in urls.found if url.strip().lower().startswith("javascript")] == [], html


class _Urls(HTMLParser):
    """The href and src values of an HTML text, references decoded, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value or "" for name, value in attrs if name in ("href", "src")]
