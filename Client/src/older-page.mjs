/**
 * One page of older items, without the DOM: the request an "Older items" link stands for, what
 * the server's answer means, and which of its items the list does not hold yet. The DOM side is
 * older-items.mjs; this part is tested in node (Tests/js/older-page.test.mjs).
 * @module older-page
 */

/** The API route that answers a page of items as `<li>`s of the page's own partial. */
export const ITEMS_ENDPOINT = '/api/items'

/**
 * What an "Older items" link says, read from its attributes.
 * @typedef {object} OlderLink
 * @property {string} href the link's absolute URL (`/?before=<cursor>&lang=…&layout=…`)
 * @property {string} cursor `data-ptr-older`: the keyset position the next page starts after
 * @property {string} [pageSize] `data-ptr-page-size`: how many items a page of this feed has
 */

/**
 * The next page of older items.
 * @typedef {object} OlderItems
 * @property {string} html the `<li class="item">` elements, newest first
 * @property {string | null} nextCursor `X-Feed-Next-Cursor`, `null` on the last page
 */

/**
 * Why a page of older items did not arrive; the error state picks its text from `code`.
 * @typedef {object} OlderItemsError
 * @property {'busy' | 'offline' | number | string} code `busy` for 429/503, `offline` when the
 *   request failed with the device offline, the HTTP status for other non-2xx answers, the
 *   error's name for other failures (`AbortError` after the timeout)
 */

/**
 * `GET /api/items?cursor=<cursor>&limit=<page size>[&lang=xx][&source=key]` for a link.
 * @param {OlderLink} link
 * @returns {URL}
 */
export function olderItemsURL({ href, cursor, pageSize }) {
  const url = new URL(ITEMS_ENDPOINT, href)
  url.searchParams.set('cursor', cursor)
  if (pageSize) url.searchParams.set('limit', pageSize)
  // The link carries `lang` only when the reader chose a language: then the fragment must be in
  // it too. Otherwise the server negotiates Accept-Language, as it did for the page itself.
  const query = new URL(href).searchParams
  const lang = query.get('lang')
  if (lang) url.searchParams.set('lang', lang)
  // A page of one source of a river: its older items are that source's too.
  const source = query.get('source')
  if (source) url.searchParams.set('source', source)
  return url
}

/**
 * Asks the server for the page of items after the link's cursor, as HTML.
 * @param {URL | string} url from {@link olderItemsURL}
 * @param {AbortSignal} [signal] aborts the request (the caller's timeout)
 * @returns {Promise<OlderItems>} rejects with an {@link OlderItemsError}
 */
export async function requestOlderItems(url, signal) {
  let response, html
  try {
    response = await fetch(url, { headers: { Accept: 'text/html' }, signal })
    if (response.ok) html = await response.text()
  } catch (error) {
    // No answer at all, or a body cut short. Say "offline" when that is why, so the reader
    // knows it is their connection and not the server.
    throw { code: navigator.onLine ? error?.name || 'Error' : 'offline' }
  }
  if (response.status === 429 || response.status === 503) throw { code: 'busy' }
  // A 400 (a cursor the server refuses) carries the JSON error envelope: nothing to show, the
  // status says enough. fetch follows redirects, so any other non-2xx is a failure too.
  if (!response.ok) throw { code: response.status }
  // An empty header is no cursor either: nothing can come after it.
  return { html, nextCursor: response.headers.get('X-Feed-Next-Cursor') || null }
}

/**
 * The candidates whose id is neither in `knownIds` nor earlier among the candidates, in order.
 * Keyset cursors already keep a refresh's new items out of older pages; this is the defence
 * in depth the list relies on, whatever the server does. Ids are compared as strings (they may
 * become opaque strings); a candidate without an id cannot be a duplicate by id and is kept.
 * @template T
 * @param {Iterable<T>} candidates
 * @param {(candidate: T) => string | number | undefined} idOf
 * @param {Iterable<string | number>} knownIds the ids the list already shows
 * @returns {T[]}
 */
export function freshItems(candidates, idOf, knownIds) {
  const seen = new Set()
  for (const id of knownIds) if (id != null) seen.add(String(id))
  const fresh = []
  for (const candidate of candidates) {
    const id = idOf(candidate)
    if (id != null) {
      if (seen.has(String(id))) continue
      seen.add(String(id))
    }
    fresh.push(candidate)
  }
  return fresh
}

/**
 * @callback OlderText the localized string `key` of the Older link's container
 *   (`'Loaded'` → `data-text-loaded`), else the gesture's (`data-ptr-text-retry` on the feed
 *   root), with `{n}` replaced by `n`; '' when the page has neither
 * @param {string} key
 * @param {number} [n]
 * @returns {string}
 */

/**
 * @param {DOMStringMap | Record<string, string>} own the container's dataset
 * @param {DOMStringMap | Record<string, string>} [gesture] the feed root's: "Retry", "You're
 *   offline" and "Server busy" are the gesture's strings already, so the page sends them once
 * @returns {OlderText}
 */
export function createOlderTexts(own, gesture = {}) {
  return (key, n) => (own['text' + key] || gesture['ptrText' + key] || '').replace('{n}', n)
}

/**
 * What the live region says once a page arrived: "30 older items loaded." (one item has its own
 * string), followed on the last page by "That's the end of the feed." Nothing when no item was
 * added and more may follow (another page is on its way).
 * @param {OlderText} text
 * @param {number} added items appended
 * @param {boolean} atEnd no older items exist
 */
export function loadedAnnouncement(text, added, atEnd) {
  const loaded = added > 0 ? text(added === 1 ? 'LoadedOne' : 'Loaded', added) : ''
  return [loaded, atEnd ? text('End') : ''].filter(Boolean).join(' ')
}

/**
 * The error state's text: the gesture's own "You're offline" and "Server busy" strings when
 * they fit, else "Couldn't load older items".
 * @param {OlderText} text
 * @param {OlderItemsError} error
 */
export function errorText(text, error) {
  const code = error?.code
  const key = code === 'offline' ? 'Offline' : code === 'busy' ? 'Busy' : null
  return (key && text(key)) || text('Error')
}
