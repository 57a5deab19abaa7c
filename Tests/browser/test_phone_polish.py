"""Phone-sized details on a 390×844 touch phone in headless Chromium: tap targets, the end of the
feed, the past-the-end older page, and what a refresh just added."""
from conftest import make_items
from test_pull_to_refresh import FEED, X, open_feed, wait_idle

# Every control outside the items' own text (their title links are inline text): visible
# links and buttons, with the pill and both Retry buttons shown as they would be.
TARGETS = """(() => {
  for (const hidden of document.querySelectorAll('[data-ptr-pill], [data-ptr-retry]')) hidden.hidden = false
  return [...document.querySelectorAll('a, button')]
    .filter(e => !e.closest('.item-card') && e.getClientRects().length)
    .map(e => { const r = e.getBoundingClientRect()
      return [e.className || e.tagName, e.textContent.trim(), Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10] })
})()"""


def test_every_tap_target_is_at_least_44_by_44(page, server):
    srv = server(items=make_items(45))
    # The grid's short pages bring the older ones in at once, so its link may be gone already.
    for target, parts in (("/", ("feed-refresh-button", "ptr-retry", "ptr-pill", "feed-older")),
                          ("/?layout=grid&lang=ko", ("feed-refresh-button", "ptr-retry", "ptr-pill"))):
        open_feed(page, srv.url + target)
        seen = page.eval(TARGETS)
        names = " ".join(name for name, *_ in seen)
        for part in parts:
            assert part in names, (part, seen)
        small = [t for t in seen if t[2] < 44 or t[3] < 44]
        assert small == [], (target, small)
        layouts = page.eval("[...document.querySelectorAll('.feed-layouts a')].map(a => a.getBoundingClientRect().height)")
        assert len(layouts) == 2 and min(layouts) >= 44, layouts


def test_the_end_of_the_feed_is_a_visible_line(page, server):
    srv = server(items=make_items(5))
    open_feed(page, srv.url + "/")
    assert page.eval("!document.querySelector('.feed-older')")
    end = "document.querySelector('[data-feed-end]')"
    assert page.eval(f"!{end}.hidden && {end}.getBoundingClientRect().height > 0")
    assert page.eval(f"{end}.textContent") == "That's the end of the feed."
    # It sits under the last item.
    assert page.eval(f"{end}.getBoundingClientRect().top >= "
                     "document.querySelector('[data-ptr-list] > li:last-child').getBoundingClientRect().bottom")
    # With more to load, it waits, hidden, for the last page.
    more = server(items=make_items(45))
    open_feed(page, more.url + "/")
    assert page.eval(f"{end}.hidden && getComputedStyle({end}).display === 'none'")


def test_an_older_page_past_the_end_says_so(page, server):
    srv = server(items=make_items(5))
    page.goto(srv.url + "/?before=c1.30")
    text = page.eval("document.querySelector('.feed-empty').textContent")
    assert text.startswith("No older items: that's the end of the feed."), text
    assert "Pull down" not in page.eval("document.body.textContent")
    assert page.eval("document.querySelector('.feed-empty a').getAttribute('href')") == "/"


def test_what_a_refresh_adds_is_marked_new_for_a_few_seconds(page, server):
    srv = server(reload_delay=0.2)
    open_feed(page, srv.url + "/")
    count = page.eval("document.querySelectorAll('[data-ptr-list] > li').length")
    page.drag(X, 150, 320)
    page.wait_for(f"document.querySelectorAll('[data-ptr-list] > li').length > {count}", 10, "new items")
    wait_idle(page)
    added = page.eval("document.querySelectorAll('[data-ptr-list] > li').length") - count
    marked = page.eval("[...document.querySelectorAll('[data-ptr-list] > li')].map(li => li.hasAttribute('data-ptr-new'))")
    assert marked == [True] * added + [False] * count
    # Visibly: the tinted edge.
    edge = page.eval("getComputedStyle(document.querySelector('li[data-ptr-new] .item-card')).boxShadow")
    assert "inset" in edge, edge
    # Announced as before.
    live = page.eval("document.querySelector('[data-ptr-status]').textContent")
    assert live == (f"{added} new items" if added > 1 else "1 new item")
    page.wait_for("!document.querySelector('li[data-ptr-new]')", 10, "the mark to clear")
    assert page.eval(f"{FEED}.dataset.ptrState") == "idle"
