/**
 * The network call of the default refresh: `POST /api/refresh?since=<position on screen>` asking
 * for the HTML fragment of the new items. No DOM: it only uses `fetch` and `navigator.onLine`.
 * @module refresh-request
 */

/**
 * What the server answered.
 * @typedef {object} NewItems
 * @property {string} html the fragment of new `<li>` items (empty when nothing is new)
 * @property {string | null} version `X-Feed-Version`: the version the fragment brings the page to
 * @property {string | null} epoch `X-Feed-Epoch`: the epoch that version counts in
 * @property {string | null} updatedAt `X-Feed-Updated-At`: ISO time of the feed's last change
 */

/**
 * Why a refresh failed; the indicator picks its text from `code`.
 * @typedef {object} RefreshError
 * @property {'busy' | 'offline' | 'timeout' | number | string} code `busy` for 429/503,
 *   `offline` when the request failed with the device offline, the HTTP status for other
 *   non-2xx answers, the error's name for other network failures (`timeout` comes from the
 *   watchdog in gesture-core.mjs)
 * @property {number} [retryAfter] seconds, from `Retry-After` (busy only)
 */

/**
 * Asks the server for the items newer than `since`.
 * @param {string} endpoint URL of the refresh endpoint, relative to the page's
 * @param {string | number} since the position the page shows (`<epoch>-<version>`, see
 *   feed-position.mjs), or a bare version
 * @param {AbortSignal} signal aborts the request (the watchdog's)
 * @param {string | false} [method] `'GET'` to fetch known new items without a reload
 * @returns {Promise<NewItems>} rejects with a {@link RefreshError}
 */
export async function requestNewItems(endpoint, since, signal, method) {
  const url = new URL(endpoint, location.href)
  url.searchParams.set('since', since)
  const init = { method: method || 'POST', headers: { Accept: 'text/html' }, signal }
  const response = await fetch(url, init).catch(error => {
    // fetch rejects only when no answer arrived at all. Say "offline" when that is why, so the
    // reader knows it is their connection and not the server.
    throw { code: navigator.onLine ? error.name : 'offline' }
  })
  const status = response.status
  const header = name => response.headers.get(name)
  if (status === 429 || status === 503) {
    throw { code: 'busy', retryAfter: +header('Retry-After') }
  }
  // 304 (nothing changed since the version we sent) is not an error: it means "up to date".
  if (!response.ok && status !== 304) throw { code: status }
  // Read the body before reporting the new version: if it fails half way, the page keeps the
  // version it really shows, and the next refresh asks again.
  const html = await response.text()
  return {
    html,
    version: header('X-Feed-Version'),
    epoch: header('X-Feed-Epoch'),
    updatedAt: header('X-Feed-Updated-At'),
  }
}
