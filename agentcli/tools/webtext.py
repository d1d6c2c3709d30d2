"""HTML to readable text with the standard library's html.parser (no browser, no scripts).

Scripts, styles and other non-content elements are dropped; block elements become line
breaks; links keep their target as `[text](url)`. The parser never recurses, so a deeply
nested page costs time linear in its size, and the caller bounds the size.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "head"})
_BLOCK = frozenset({"p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "ul", "ol", "li",
                    "table", "tr", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "dl", "dt",
                    "dd", "figure", "figcaption", "form", "title"})
_HEAD = {"h1": "# ", "h2": "## ", "h3": "### ", "h4": "#### ", "li": "- "}


class _Reader(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.title = ""
        self._in_title = False
        self._href: str | None = None
        self._link_text: list[str] = []
        self._link_at = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _SKIP:
            self.skip += 1
            return
        if tag == "pre":
            self.pre += 1
        if tag in _BLOCK:
            self.out.append("\n" + _HEAD.get(tag, ""))
        if tag in ("td", "th"):
            self.out.append(" | ")
        if tag == "a" and not self.skip:
            href = dict(attrs).get("href") or ""
            self._href = urljoin(self.base, href) if href and not href.startswith(("javascript:", "#")) else None
            self._link_text = []
            self._link_at = len(self.out)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if tag == "pre":
            self.pre = max(0, self.pre - 1)
        if tag == "a" and self._href is not None:
            text = "".join(self._link_text).strip()
            if text and self._href.startswith(("http://", "https://")):
                self.out.insert(self._link_at, "[")
                self.out.append(f"]({self._href})")
            self._href = None
        if tag in _BLOCK:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self.skip:
            return
        text = data if self.pre else re.sub(r"\s+", " ", data)
        self.out.append(text)
        if self._href is not None:
            self._link_text.append(text)


def html_to_text(html: str, base: str = "") -> str:
    """Readable text of an HTML page: title first, blank lines squeezed."""
    reader = _Reader(base)
    try:
        reader.feed(html)
        reader.close()
    except (AssertionError, ValueError):  # html.parser on hopeless markup: keep what was read
        pass
    body = "".join(reader.out)
    lines = [ln.rstrip() for ln in body.splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(ln if ln.strip() else "" for ln in lines)).strip()
    title = " ".join(reader.title.split())
    return (f"Title: {title}\n\n" if title else "") + text
