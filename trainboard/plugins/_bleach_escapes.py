"""What bleach (TensorBoard's sanitiser) does that nh3 does not, done before and after nh3 cleans the HTML.

bleach shows a tag that is not allowed as text (`<script>` becomes `&lt;script&gt;`, its content kept, escaped),
where nh3 drops the tag (and a script's content); and bleach leaves character references in text as written
(`&copy;`, `&#169;`), where nh3 writes the characters they stand for. So before nh3: tags that are not allowed are
escaped as text, and the `&` of each character reference in text is put aside; after nh3 it is put back. A bare `&`
(no `;`-terminated reference) is escaped, as bleach escapes it. nh3 still parses and cleans everything that is left:
allowed tags, their attributes and URLs.
"""

from __future__ import annotations

import functools
import html.entities
import re
from collections.abc import Callable, Collection

# A comment, a doctype or processing instruction (nh3 drops both), or a start or end tag with its attributes.
_MARKUP = re.compile(
    r"""<!--.*?(?:-->|\Z)|<[!?][^>]*(?:>|\Z)|<(/?)([A-Za-z][^\t\n\f\r />]*)(?:[^>"']|"[^"]*"|'[^']*')*>""",
    re.DOTALL,
)
# A character reference as bleach keeps it in text: digits, or a name that begins some HTML entity's name, then `;`.
_REFERENCE = re.compile(r"&(#[0-9]+;|#[xX][0-9a-fA-F]+;|[^<&=;\s]+;)?")
# Control characters bleach shows as "?" in text.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
# Where a reference's `&` waits while nh3 cleans (a private-use character); inputs holding it are not protected.
_AMPERSAND = "\ue000"


def sanitise(unsafe: str, allowed: Collection[str], clean: Callable[[str], str]) -> str:
    """`unsafe` cleaned by `clean` (nh3, allowing the tags `allowed`), with bleach's escapes."""
    protect = _AMPERSAND not in unsafe
    cleaned = clean(_escape_disallowed(unsafe, allowed, protect))
    return cleaned.replace(_AMPERSAND, "&") if protect else cleaned


def drop_set_aside(element: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter: a value holding a set-aside `&` is dropped. Only text holds them, unless this module
    read a tag's end where the HTML parser did not (`<a x=a"b href=">...`): then such text became an attribute, whose
    references must not come back after nh3 checked the URL."""
    return None if _AMPERSAND in value else value


def _escape_disallowed(unsafe: str, allowed: Collection[str], protect: bool) -> str:
    """`unsafe` with the tags not in `allowed` escaped as text, references in text set aside (with `protect`) and bare
    `&` in text escaped."""
    parts: list[str] = []
    position = 0
    while (found := _MARKUP.search(unsafe, position)) is not None:
        parts.append(_text(unsafe[position : found.start()], protect))
        position = found.end()
        name = found.group(2)
        if name is None or name.lower() in allowed:
            parts.append(found.group(0))
            continue
        # Its content is read as markup, even a script's: bleach reads it so.
        parts.append(_text(found.group(0), protect))
    parts.append(_text(unsafe[position:], protect))
    return "".join(parts)


def _text(text: str, protect: bool) -> str:
    """Text as bleach writes it: a `<` outside a complete tag (`<b` at the end) is text too."""
    text = _REFERENCE.sub(lambda found: _ampersand(found, protect), _INVISIBLE.sub("?", text))
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _ampersand(found: re.Match[str], protect: bool) -> str:
    """A reference bleach keeps, set aside; any other `&` escaped."""
    reference = found.group(1)
    if reference and (reference.startswith("#") or reference[:-1] in _entity_prefixes()):
        return (_AMPERSAND if protect else "&") + reference
    return "&amp;" + (reference or "")


@functools.cache
def _entity_prefixes() -> frozenset[str]:
    return frozenset(name[:end] for name in html.entities.html5 for end in range(1, len(name) + 1))
