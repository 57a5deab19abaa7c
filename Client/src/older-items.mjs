/**
 * Older items in place: the "Older items" link below the list (`a[data-ptr-older]`, a real link
 * to `/?before=<cursor>` that works without JavaScript) loads the next page into the list instead
 * of navigating, when the reader nears the end of the list or activates the link.
 *
 * - An IntersectionObserver watches the link, a screen ahead of the visible area, so the items
 *   are usually there before the reader reaches the end. One request at a time.
 * - The items come from `GET /api/items?cursor=…` as `<li>`s of the page's own partial; any the
 *   list already holds (by `data-item-id`, compared as strings) are dropped.
 * - The link then points at `X-Feed-Next-Cursor`, or goes away with its `<nav>` on the last page.
 * - While loading, the list is `aria-busy` and the link's `<nav>` says so; the result is
 *   announced in the page's `[data-ptr-status]` live region ("30 older items loaded.").
 * - A failure shows an error state with Retry, and scrolling stops asking until the reader
 *   retries (by Retry or the link, which stays as it was): a failing server is not hammered.
 * - Focus: loading by scrolling never moves it. When the reader asked (clicked or pressed the
 *   link, or Retry), focus moves to the first new item: reading goes on where the next page
 *   would have started, as following the link would have done, instead of staying on a link
 *   that has just jumped thirty items further down (or on a Retry button that is gone).
 *
 * Strings come from the `<nav>`'s `data-text-*` attributes, in the page's language, and for
 * Retry, offline and busy from the gesture's `data-ptr-text-*` on the feed root.
 * @module older-items
 */

import {
  createOlderTexts,
  errorText,
  freshItems,
  loadedAnnouncement,
  olderItemsURL,
  requestOlderItems,
} from './older-page.mjs'

/**
 * How far below the visible area the link starts a load: one screen (a percentage of
 * rootMargin is of the scroller's own height), time enough on a slow link for a page to arrive
 * before the reader gets there.
 */
const LOOKAHEAD = '0px 0px 100% 0px'

/** The longest wait for a page before the error state offers Retry, like the gesture's. */
const TIMEOUT_MS = 15000

/**
 * Makes the page's "Older items" link load older items in place.
 * @param {Document} document
 * @returns {{ load: (byReader?: boolean) => Promise<boolean> } | null} `load` fetches the next
 *   page now (resolves to whether it arrived); `null` when the page has no link (the last page)
 *   or no list to append to
 */
export function startOlderItems(document) {
  const link = document.querySelector('a[data-ptr-older]')
  const feed = link?.closest('[data-pull-to-refresh]')
  const list = feed?.querySelector('[data-ptr-list]')
  if (!link || !list) return null
  /** The link's `<nav class="feed-more">`: where the strings are and the state is shown. */
  const more = link.parentElement
  const text = createOlderTexts(more.dataset, feed.dataset)
  const liveRegion = feed.querySelector('[data-ptr-status]')
  const { status, message, retry } = createStatus(document, text('Retry'))
  more.append(status)

  let loading = false
  /** Set when a load fails: scrolling then waits for the reader to retry. */
  let failed = false
  /** The reader asked for the load in flight (or for one while another was in flight). */
  let readerAsked = false

  // The page's feed root is a full-height scroller (app.css), so the link crosses the root's
  // edge, not the viewport's; a page that lets the document scroll instead gets the viewport.
  const overflow = getComputedStyle(feed).overflowY
  const scroller = overflow === 'auto' || overflow === 'scroll' ? feed : null
  const observer =
    'IntersectionObserver' in window
      ? new IntersectionObserver(
          entries => {
            if (entries[entries.length - 1].isIntersecting && !failed) load(false)
          },
          { root: scroller, rootMargin: LOOKAHEAD },
        )
      : null
  observer?.observe(link)

  link.addEventListener('click', event => {
    // A new tab, a new window, a download: the browser's business, the link still works for it.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return
    }
    event.preventDefault()
    load(true)
  })
  retry.addEventListener('click', () => load(true))

  /**
   * Fetches and appends the next page.
   * @param {boolean} byReader the reader asked (link or Retry): focus goes to the new items
   * @returns {Promise<boolean>} whether a page arrived (false also when one is in flight)
   */
  async function load(byReader = false) {
    readerAsked ||= byReader
    if (loading || !link.isConnected) return false
    loading = true
    list.setAttribute('aria-busy', 'true')
    show('loading', text('Loading'))
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS)
    const request = olderItemsURL({
      href: link.href,
      cursor: link.dataset.ptrOlder,
      pageSize: link.dataset.ptrPageSize,
    })
    let added = null
    try {
      const page = await requestOlderItems(request, controller.signal)
      added = append(page.html)
      failed = false
      show('idle', '')
      moveLink(page.nextCursor)
      announce(loadedAnnouncement(text, added.length, !page.nextCursor))
    } catch (error) {
      failed = true
      show('error', errorText(text, error))
      announce(errorText(text, error))
    } finally {
      clearTimeout(timer)
      loading = false
      // aria-busy is the gesture's too: a refresh may be running meanwhile.
      list.setAttribute('aria-busy', String(feed.dataset.ptrState === 'refreshing'))
    }
    // A page that added nothing (every item already shown) leaves the reader's request for the
    // next one, which follows right away.
    if (added && readerAsked && (added.length || !link.isConnected)) {
      focusNewItems(added)
      readerAsked = false
    }
    // Observing again reports where the link is now: if the new page was short, or the reader
    // scrolled on meanwhile, it is still in reach and the next page loads right away.
    if (!failed && link.isConnected && observer) {
      observer.unobserve(link)
      observer.observe(link)
    }
    return added !== null
  }

  /**
   * Appends the items of a fragment the list does not hold yet.
   * @param {string} html
   * @returns {HTMLElement[]} the items appended, in order
   */
  function append(html) {
    const template = document.createElement('template')
    // The fragment is the server's own escaped rendering of partials/item.mustache (never a
    // user's string), parsed inert in a template.
    template.innerHTML = html
    const known = Array.from(list.children, item => item.dataset.itemId)
    const items = freshItems(template.content.children, item => item.dataset.itemId, known)
    // One insertion: feed.js's MutationObserver gives them their relative times in one batch.
    list.append(...items)
    return items
  }

  /**
   * Points the link at the next page, or removes it (with its `<nav>`) after the last one.
   * @param {string | null} nextCursor
   */
  function moveLink(nextCursor) {
    if (!nextCursor) {
      observer?.disconnect()
      more.remove()
      // The visible end of the feed, which the server renders hidden while there is more.
      const end = document.querySelector('[data-feed-end]')
      if (end) end.hidden = false
      return
    }
    link.dataset.ptrOlder = nextCursor
    // The href stays what the server would render (relative, `lang` and `layout` kept), so a
    // new tab gets that very page.
    const href = new URL(link.href)
    href.searchParams.set('before', nextCursor)
    link.setAttribute('href', href.pathname + href.search + href.hash)
  }

  /**
   * After a load the reader asked for: the first new item takes focus, unless they moved it
   * somewhere else meanwhile. With no new item (the last page was empty) the link keeps it, or
   * the list takes it when the link is gone.
   * @param {HTMLElement[]} added
   */
  function focusNewItems(added) {
    const active = document.activeElement
    if (active !== link && active !== retry && active !== document.body && active !== null) {
      return
    }
    const target = added[0] ?? (link.isConnected ? link : list)
    // Items are not focusable by themselves; -1 keeps them out of the Tab order.
    if (target !== link) target.tabIndex = -1
    target.focus()
  }

  /**
   * Shows a state in the `<nav>`: `data-older-state` (for the look), the visible status text,
   * and Retry (only in `error`; it stays during the retry's own load, so it keeps focus).
   * @param {'idle' | 'loading' | 'error'} state
   * @param {string} statusText
   */
  function show(state, statusText) {
    more.dataset.olderState = state
    message.textContent = statusText
    status.hidden = !statusText
    if (state !== 'loading') retry.hidden = state !== 'error'
    retry.setAttribute('aria-disabled', String(state === 'loading'))
  }

  /** @param {string} announcement */
  function announce(announcement) {
    if (!liveRegion || !announcement) return
    // The same words twice ("30 older items loaded." for the next page too) would be no change
    // a screen reader hears: a no-break space at the end makes the second one differ.
    const same = liveRegion.textContent === announcement
    liveRegion.textContent = same ? announcement + '\u00a0' : announcement
  }

  return { load }
}

/**
 * The `<nav>`'s status line: a text and a Retry button, both hidden until needed. It is not a
 * live region itself: announcements go to the page's one `[data-ptr-status]`, so two regions
 * never talk at once.
 * @param {Document} document
 * @param {string} retryText
 */
function createStatus(document, retryText) {
  const status = document.createElement('p')
  status.className = 'feed-more-status'
  status.hidden = true
  const message = document.createElement('span')
  const retry = document.createElement('button')
  retry.type = 'button'
  retry.className = 'ptr-retry feed-more-retry'
  retry.textContent = retryText
  retry.hidden = true
  status.append(message, ' ', retry)
  return { status, message, retry }
}
