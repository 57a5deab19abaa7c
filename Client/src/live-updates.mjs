/**
 * Live "N new items": while the page is visible it holds an `EventSource` on `/api/events`;
 * each `version` event newer than what the page shows offers the gesture's "N new items" pill
 * (never inserting anything under the reader). Tapping the pill then runs the gesture's refresh
 * with source `'live'`: a GET of the items newer than the version on screen, inserted with the
 * same animation, focus handling and announcement as a pull, and no upstream reload.
 *
 * Hidden pages close their stream: browsers allow six HTTP/1.1 connections per origin, and
 * mobile browsers kill background sockets without telling. Visible again, the page reconnects
 * with `?since=` the newest position it knows, and the server answers at once if it is behind.
 * Positions carry their epoch (feed-position.mjs): an event from a later epoch is news whatever
 * its number, and its `added` counts every item.
 * @module live-updates
 */

import { newItemsText, createTexts } from './announcer.mjs'
import { isAfter, pagePosition, sinceParam } from './feed-position.mjs'

/**
 * @typedef {object} VersionEvent the `data` of an `event: version`
 * @property {number} version the feed's version now
 * @property {string} [epoch] the epoch it counts in
 * @property {string} updatedAt ISO time of that version
 * @property {number} added items newer than the position the stream last reported (all of
 *   them when that was in another epoch)
 */

/**
 * Starts live updates on a pull-to-refresh root (which needs the gesture's `[data-ptr-pill]`).
 * @param {HTMLElement & { ptr?: { refresh: (source?: string) => Promise<boolean> } }} root
 * @param {{ events?: string, items?: string }} [endpoints] the stream and the items fragment
 * @returns {{ stop: () => void, open: () => void, close: () => void }}
 */
export function startLiveUpdates(root, endpoints = {}) {
  const pill = root.querySelector('[data-ptr-pill]')
  const data = root.dataset
  const text = createTexts(data)
  const noop = { stop() {}, open() {}, close() {} }
  if (!pill || typeof EventSource !== 'function') return noop
  // Where the gesture's `live` refresh fetches from: the items API's HTML fragment, which
  // takes `since` like the refresh does but reloads nothing. A page showing one source of a
  // river names its own (`data-ptr-live-endpoint`, with `source=`).
  data.ptrLiveEndpoint = endpoints.items || data.ptrLiveEndpoint || '/api/items?limit=100'

  /**
   * The position the stream last reported (or was opened from): what the server counts `added`
   * from. Never behind the page's own.
   * @type {import('./feed-position.mjs').FeedPosition}
   */
  let known = pagePosition(data)
  /** Items announced beyond those on screen. */
  let pending = 0
  /** @type {EventSource | null} */
  let source = null

  /** `known`, or the page's position when a refresh took the page past it. */
  function newest() {
    const shown = pagePosition(data)
    return isAfter(shown, known) ? shown : known
  }

  /** @param {MessageEvent} message */
  function onVersion(message) {
    /** @type {VersionEvent} */
    const event = JSON.parse(message.data)
    const position = { epoch: event.epoch || known.epoch, version: event.version }
    if (!isAfter(position, newest())) return
    // `added` counts from the position the stream last reported, which is `known`: from another
    // epoch it counts every item, so it replaces what was pending rather than adding to it.
    const sameEpoch = !known.epoch || position.epoch === known.epoch
    pending = sameEpoch ? pending + event.added : event.added
    known = position
    if (pending > 0) {
      pill.textContent = newItemsText(text, pending)
      // Marks the pill's mode: a tap now loads the items (below), besides the gesture's own
      // scroll to the top and focus on the list.
      pill.dataset.ptrPillMode = 'live'
      pill.hidden = false
    }
  }

  function open() {
    if (source) return
    // A page of one source of a river names its stream (`data-ptr-events-endpoint`, with
    // `source=`), whose events count that source's items only.
    const url = new URL(endpoints.events || data.ptrEventsEndpoint || '/api/events', location.href)
    known = newest()
    url.searchParams.set('since', sinceParam(known))
    source = new EventSource(url)
    source.addEventListener('version', onVersion)
  }

  function close() {
    source?.close()
    source = null
  }

  const listeners = new AbortController()
  const options = { signal: listeners.signal }
  const followVisibility = () => (document.visibilityState === 'visible' ? open() : close())
  document.addEventListener('visibilitychange', followVisibility, options)
  // Back from the back/forward cache the stream is gone (pagehide closed it).
  window.addEventListener('pageshow', followVisibility, options)
  window.addEventListener('pagehide', close, options)

  pill.addEventListener(
    'click',
    () => {
      if (pill.dataset.ptrPillMode !== 'live') return
      delete pill.dataset.ptrPillMode
      root.ptr?.refresh('live').then(loaded => {
        // Refused (a refresh was running or had just finished) or failed: offer it again.
        if (!loaded && pending > 0) {
          pill.dataset.ptrPillMode = 'live'
          pill.hidden = false
        }
      })
    },
    options,
  )
  // The gesture hides the pill when the reader scrolls back to the top, because a pull's
  // items are there by then; announced items are not, so their pill stays until tapped.
  root.addEventListener(
    'scroll',
    () => {
      if (pill.dataset.ptrPillMode === 'live') pill.hidden = false
    },
    { capture: true, passive: true, signal: listeners.signal },
  )
  // Any refresh that brought new items (a pull, the button, the pill) moved the version on
  // screen up to what the stream had announced, or past it. Heard through the DOM, like every
  // other change feed.js follows: the callback runs after the refresh inserted its items.
  const versionObserver = new MutationObserver(() => {
    known = newest()
    pending = 0
    // At the top the items are in view: the announced pill has nothing left to lead to (when
    // scrolled away, the gesture has just shown its own pill for the inserted items).
    if (pill.dataset.ptrPillMode === 'live' && root.scrollTop < 1) pill.hidden = true
    delete pill.dataset.ptrPillMode
  })
  versionObserver.observe(root, { attributeFilter: ['data-ptr-version'] })

  followVisibility()
  return {
    open,
    close,
    stop() {
      listeners.abort()
      versionObserver.disconnect()
      close()
    },
  }
}
