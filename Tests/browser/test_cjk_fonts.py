"""The ko and ja pages as Chromium draws them: their glyphs come from a CJK font (Debian's
fonts-noto-cjk, installed by `make browser-deps`), not the missing-glyph box."""
import json

import pytest

from test_pull_to_refresh import open_feed

# Widths of one string in the page's font, and of as many unassigned code points (U+0378 has no
# glyph in any font: every one is drawn as the font's missing-glyph box).
WIDTHS = """(() => {
  const heading = document.querySelector('.feed-title')
  const measure = text => {
    const span = document.createElement('span')
    span.textContent = text
    span.style.font = getComputedStyle(heading).font
    span.style.whiteSpace = 'pre'
    document.body.append(span)
    const width = span.getBoundingClientRect().width
    span.remove()
    return width
  }
  const text = heading.textContent
  return [text, measure(text), measure('\\u0378'.repeat(text.length))]
})()"""


@pytest.mark.parametrize("lang, heading, family", [("ko", "최신 항목", "Noto Sans CJK"), ("ja", "最新", "Noto Sans CJK")])
def test_cjk_headings_are_drawn_from_a_cjk_font_not_boxes(page, server, lang, heading, family):
    srv = server()
    open_feed(page, srv.url + f"/?lang={lang}")
    text, width, boxes = page.eval(WIDTHS)
    assert text == heading
    assert width > 0 and abs(width - boxes) > 1, (text, width, boxes)
    # And by name: the fonts Chromium used for the heading's text.
    page.send("DOM.enable")
    page.send("CSS.enable")
    root = page.send("DOM.getDocument")["root"]["nodeId"]
    node = page.send("DOM.querySelector", nodeId=root, selector=".feed-title")["nodeId"]
    fonts = page.send("CSS.getPlatformFontsForNode", nodeId=node)["fonts"]
    cjk = [f for f in fonts if f["familyName"].startswith(family)]
    assert cjk and sum(f["glyphCount"] for f in cjk) >= len(heading.replace(" ", "")), json.dumps(fonts)
