/**
 * The DOM binding: touch events → the state machine → the page. `attach` finds the optional
 * parts inside the root, wires the other modules to them, registers the gesture's listeners
 * (with the reasons for their `passive` flags) and hands back a controller that removes
 * everything again.
 * @module attach
 */

import { createAnnouncer, createTexts } from './announcer.mjs'
import { createFeedList } from './feed-list.mjs'
import { pagePosition, sinceParam } from './feed-position.mjs'
import { createCore, DEFAULTS } from './gesture-core.mjs'
import { createIndicator } from './indicator.mjs'
import { requestNewItems } from './refresh-request.mjs'

/**
 * Options of {@link attach}: those of the state machine (each also readable from a
 * `data-ptr-*` attribute of the root, e.g. `data-ptr-dead-zone="12"`; these options win) and
 * the refresh itself.
 * @typedef {object} AttachOptions
 * @property {number} [threshold=64] visual pull (px) at which releasing refreshes
 * @property {number} [max=160] the visual pull approaches this and never exceeds it (px)
 * @property {number} [deadZone=10] finger travel before anything moves (px)
 * @property {number} [hold=56] where the content rests while refreshing (px)
 * @property {number} [cooldown=1000] ms after a success during which refreshes are refused
 * @property {number} [timeout=15000] ms before the watchdog gives up on a refresh
 * @property {(context: import('./gesture-core.mjs').RefreshContext) => any} [onRefresh]
 *   replaces the default refresh (POST to `data-ptr-endpoint`, insert the fragment): resolve
 *   with `{ added: n }` (`{ added: 0 }` shows "Up to date"), reject with `{ code }` (`'offline'`
 *   and `'busy'`, with `retryAfter` seconds, have their own texts)
 */

/**
 * What `attach` returns (also at `root.ptr`).
 * @typedef {object} Controller
 * @property {import('./gesture-core.mjs').Core} core the state machine
 * @property {(source?: string) => Promise<boolean>} refresh refreshes as the gesture and the
 *   button do (`ptr:refresh` has `detail.source`, `'api'` unless given); `false` when refused
 *   or failed. With the default refresh, source `'live'` fetches without a reload.
 * @property {() => void} destroy removes every listener, timer, inline style and
 *   `data-ptr-state`
 */

/**
 * Events, dispatched on the root and bubbling:
 * - `ptr:pullstart` a pull left the dead zone
 * - `ptr:armed` releasing now refreshes
 * - `ptr:refresh` a refresh started; `detail.source`: `gesture`, `button`, `retry` or `api`
 * - `ptr:done` it succeeded; `detail`: what `onRefresh` resolved, e.g. `{ added: 3 }`
 * - `ptr:error` it failed; `detail`: the error, e.g. `{ code: 502 }` or `{ code: 'timeout' }`
 * @typedef {'ptr:pullstart' | 'ptr:armed' | 'ptr:refresh' | 'ptr:done' | 'ptr:error'} PtrEvent
 */

/**
 * Reads the numeric options from a root's dataset: `data-ptr-dead-zone="12"` →
 * `{ deadZone: 12 }`. Anything but a number ≥ 0 (an empty attribute too) is left out, so the
 * default stays.
 * @param {DOMStringMap | Record<string, string>} dataset
 */
export function optionsFromDataset(dataset) {
  const options = {}
  for (const name in DEFAULTS) {
    const value = dataset['ptr' + name[0].toUpperCase() + name.slice(1)]
    if (value && value >= 0) options[name] = Number(value)
  }
  return options
}

/**
 * Makes `root` pullable. `root` is the scroll container itself (`overflow-y: auto`): its
 * `scrollTop` says whether the content is at the top. Attaching twice returns the same
 * controller.
 * @param {HTMLElement & { ptr?: Controller }} root
 * @param {AttachOptions} [options]
 * @returns {Controller}
 */
export function attach(root, options = {}) {
  if (root.ptr) return root.ptr
  const data = root.dataset
  /** @type {import('./announcer.mjs').FindPart} */
  const part = name => root.querySelector(`[data-ptr-${name}]`)
  const updated = part('updated')
  const button = part('button')
  const retry = part('retry')
  const atTop = () => root.scrollTop < 1

  // Every listener goes through `listen`, so destroy() removes them all with one abort().
  const listeners = new AbortController()
  const listen = (target, type, handler, passive) =>
    target?.addEventListener(type, handler, { passive, signal: listeners.signal })

  const text = createTexts(data)
  const announce = createAnnouncer(root, part, text)
  const showPull = createIndicator(root, part('pill'))
  const insertItems = createFeedList(root, part, text, listen)

  /**
   * The default refresh: ask the server for what is newer than the page, then show it. A
   * `live` refresh (the page's script heard of new items) only fetches them with a GET from
   * `data-ptr-live-endpoint`, and the server reloads nothing.
   */
  async function loadNewItems({ signal, source }) {
    const live = source === 'live'
    const endpoint = live ? data.ptrLiveEndpoint : data.ptrEndpoint
    const since = sinceParam(pagePosition(data))
    const answer = await requestNewItems(endpoint, since, signal, live && 'GET')
    if (answer.version) {
      // The epoch first: watchers of `data-ptr-version` (live-updates.mjs) read both.
      if (answer.epoch) data.ptrEpoch = answer.epoch
      data.ptrVersion = answer.version
    }
    // Only the instant: what `[data-ptr-updated]` reads like ("5 minutes ago") is the page's
    // business (feed.js watches `datetime`), so the gesture stays free of it.
    if (answer.updatedAt && updated) updated.dateTime = answer.updatedAt
    return { added: insertItems(answer.html) }
  }

  /** Whether the content follows the pull (not when a refresh began scrolled away). */
  let contentMoves = true

  function onChange(state, pull, info) {
    const previous = data.ptrState
    if (state !== previous) {
      data.ptrState = state
      // A refresh started while the reader is scrolled down (button, API) must not push what
      // they are reading down by the indicator's height.
      if (state === 'pulling' || state === 'refreshing') contentMoves = root.scrollTop <= 1
      announce(state, previous, info)
    }
    showPull(contentMoves ? pull : 0)
  }

  const core = createCore({
    ...optionsFromDataset(data),
    ...options,
    onRefresh: options.onRefresh || loadNewItems,
    onChange,
  })

  /**
   * A touch that begins in an opted-out region or in something that scrolls by itself (a wide
   * table, a carousel) belongs to that element, never to the pull.
   */
  function belongsElsewhere(target) {
    for (let element = target; element && element !== root; element = element.parentElement) {
      if (element.hasAttribute('data-ptr-ignore')) return true
      const overflows =
        element.scrollHeight + element.scrollWidth > element.clientHeight + element.clientWidth
      if (overflows && /auto|scroll/.test(getComputedStyle(element).overflow)) return true
    }
    return false
  }

  // Touch events, not pointer events: WebKit (iOS Safari) fires no pointer events for a touch
  // drag. They are always registered: `'ontouchstart' in window` is false in some WebKit
  // builds that do deliver touches, so feature detection would switch the gesture off.
  //
  // The listeners sit on the root element, not on document, window or body: WebKit (and
  // Chrome) make touch listeners there passive unless told otherwise, and preventDefault() in
  // a passive listener is silently ignored.
  //
  // touchstart is passive: it cannot know yet whether this is a pull or a scroll, and
  // preventing it would kill scrolling and taps. (WebKitGTK still scrolls by the distance of
  // the first touchmove when only that one is prevented; at the top, where a pull starts,
  // there is nothing above to scroll to, and overscroll-behavior keeps it from chaining.)
  listen(
    root,
    'touchstart',
    event => {
      const touch = event.touches[0]
      if (event.touches.length > 1 || belongsElsewhere(event.target)) core.cancel()
      else core.start(touch.clientX, touch.clientY, atTop())
    },
    true,
  )
  // touchmove is non-passive from the start: the browser decides whether a gesture's moves may
  // be prevented when it dispatches the first one, so the listener must be able to from then.
  // It prevents only the moves the state machine claims; scrolling stays the browser's.
  listen(
    root,
    'touchmove',
    event => {
      const touch = event.touches[0]
      if (core.move(touch.clientX, touch.clientY, atTop()) && event.cancelable) {
        event.preventDefault()
      }
    },
    false,
  )
  listen(root, 'touchend', event => event.touches.length || core.end(), true)
  // A pull in progress must not survive the system taking the touch away, the tab being
  // hidden or the page going into the back/forward cache; a refresh in flight carries on.
  listen(root, 'touchcancel', core.cancel, true)
  listen(document, 'visibilitychange', core.cancel)
  listen(window, 'pagehide', core.cancel)
  // The page's Refresh button is a form that POSTs without JavaScript; with it, the same refresh
  // as the gesture's runs in place, and focus stays on the button.
  listen(button?.form, 'submit', event => {
    event.preventDefault()
    core.refresh('button')
  })
  listen(retry, 'click', () => core.refresh('retry'))

  // From here on the root has data-ptr-state, which is also what turns on
  // `overscroll-behavior-y: contain` (pull-to-refresh.css): the browser's own pull-to-refresh
  // and scroll chaining stay out while we own the gesture, and only then.
  onChange('idle', 0)

  return (root.ptr = {
    core,
    refresh: source => core.refresh(source || 'api'),
    destroy() {
      listeners.abort()
      core.destroy()
      showPull(0)
      delete root.ptr
      delete data.ptrState
    },
  })
}
