/**
 * The pull-to-refresh gesture as a state machine, with no DOM.
 *
 * Everything that decides *whether* a finger is pulling, how far the content moves, when a
 * release refreshes and when a refresh is allowed lives here, so node can test every rule with a
 * fake clock (Tests/js/gesture-core.test.mjs). The DOM binding (attach.mjs) only feeds it touch
 * coordinates and paints what it reports.
 *
 *   idle → pulling ⇄ armed → refreshing → done → settling → idle
 *            ↓                    ↓
 *         settling → idle       error (stays, with Retry, until a refresh or a new pull)
 *
 * docs/gesture.md explains the rules and why each one is there.
 * @module gesture-core
 */

/**
 * @typedef {'idle' | 'pulling' | 'armed' | 'refreshing' | 'done' | 'error' | 'settling'} State
 */

/**
 * What a refresh is given: the watchdog's signal (aborted after `timeout`) and what started it.
 * @typedef {object} RefreshContext
 * @property {AbortSignal} signal
 * @property {'gesture' | 'button' | 'retry' | 'api' | string} source
 */

/**
 * The clock, injectable so tests control time.
 * @typedef {object} Timers
 * @property {(callback: () => void, ms: number) => any} setTimeout
 * @property {(handle: any) => void} clearTimeout
 * @property {() => number} [now] milliseconds; `Date.now` when missing
 */

/**
 * Options of the state machine. `null` or `undefined` values keep the defaults, so a missing
 * `data-ptr-*` attribute can be passed through as it is.
 * @typedef {object} CoreOptions
 * @property {number} [threshold=64] visual pull (px) at which releasing refreshes
 * @property {number} [max=160] the visual pull approaches this (px) and never exceeds it
 * @property {number} [deadZone=10] finger travel (px, in any direction) before anything moves
 * @property {number} [hold=56] the pull kept while refreshing and showing the result (px)
 * @property {number} [cooldown=1000] ms after a success during which refreshes are refused
 * @property {number} [timeout=15000] ms before the watchdog aborts a refresh as an error
 * @property {Timers} [timers=globalThis]
 * @property {(state: State, pull: number, info?: any) => void} [onChange] called on every
 *   update (also every move); `info` on transitions: `{ source }` when refreshing, what
 *   `onRefresh` resolved when done, the error when it failed
 * @property {(context: RefreshContext) => any} [onRefresh] does the refresh; its result (or
 *   promise) resolving means `done`, throwing or rejecting means `error`
 */

/**
 * The state machine's handle.
 * @typedef {object} Core
 * @property {Required<CoreOptions>} o the resolved options
 * @property {State} state
 * @property {number} pull the current visual pull in px (0 when nothing is pulled)
 * @property {(x: number, y: number, atTop: boolean) => void} start a finger went down
 * @property {(x: number, y: number, atTop: boolean) => boolean} move the finger moved;
 *   `true` means the move is the pull's: the caller must `preventDefault()` it
 * @property {() => void} end the last finger went up
 * @property {() => void} cancel drop the gesture (a pull in progress slides back)
 * @property {(source: string) => Promise<boolean>} refresh resolves `true` once a refresh
 *   succeeded, `false` when it failed or was refused (one is running, or in the cooldown)
 * @property {() => void} destroy stop every timer; answers still pending are ignored
 */

/**
 * The numeric options and their defaults; each can also be given as a `data-ptr-*` attribute
 * (attach.mjs reads them by these names). `timers` defaults to `globalThis`.
 */
export const DEFAULTS = {
  threshold: 64,
  max: 160,
  deadZone: 10,
  hold: 56,
  cooldown: 1000,
  timeout: 15000,
}

/** How long `done` ("Updated" / "Up to date") shows before the content slides back. */
const DONE_MS = 900
/** How long the slide back takes; the CSS transition of `settling` has the same length. */
const SETTLE_MS = 300
/** A move counts as a pull only when it is at least this many times more down than sideways. */
const DIRECTION_RATIO = 1.5
/**
 * Hysteresis: once armed, the pull disarms only below this fraction of the threshold, so a
 * finger trembling around the threshold does not make the arrow flip back and forth.
 */
const DISARM_RATIO = 0.8

/**
 * Creates the gesture state machine.
 * @param {CoreOptions} [options]
 * @returns {Core}
 */
export function createCore(options = {}) {
  const o = { ...DEFAULTS }
  for (const key in options) {
    if (options[key] != null) o[key] = options[key]
  }
  const timers = (o.timers ||= globalThis)
  const now = timers.now || Date.now

  /** @type {State} */
  let state = 'idle'
  let pull = 0
  /** A finger is down that may become a pull, and where it went down. */
  let tracking = false
  let startX = 0
  let startY = 0
  /** That finger left the dead zone downwards: it is a pull. */
  let engaged = false
  let cooldownUntil = 0
  /**
   * Bumped whenever a refresh ends and on destroy. A refresh remembers the value it started with
   * and ignores its own answer when the value moved on: the answer is late (the watchdog already
   * ended that refresh) or nobody listens any more.
   */
  let generation = 0
  /** The single pending state change (done → settling → idle); a new one replaces it. */
  let stateTimer

  function setState(next, nextPull, info) {
    state = next
    pull = nextPull
    o.onChange?.(next, nextPull, info)
  }

  function later(callback, ms) {
    timers.clearTimeout(stateTimer)
    stateTimer = timers.setTimeout(callback, ms)
  }

  function settle() {
    setState('settling', 0)
    later(() => setState('idle', 0), SETTLE_MS)
  }

  /** One refresh at a time, and none during the cooldown after one. */
  function isBusy() {
    return state === 'refreshing' || now() < cooldownUntil
  }

  function cancel() {
    tracking = false
    if (state === 'pulling' || state === 'armed') settle()
  }

  function refresh(source) {
    return new Promise(resolve => {
      if (isBusy()) return resolve(false)
      tracking = false
      const ticket = ++generation
      const controller = new AbortController()

      const finish = (ok, info) => {
        if (ticket !== generation) return
        generation++
        timers.clearTimeout(stateTimer) // the watchdog
        // After a 429/503 the server says when to come back (Retry-After, in seconds).
        cooldownUntil = now() + (ok ? o.cooldown : info?.retryAfter * 1000 || 0)
        setState(ok ? 'done' : 'error', o.hold, info)
        if (ok) later(settle, DONE_MS)
        resolve(ok)
      }

      // The watchdog, the pending state change while refreshing: whatever onRefresh does (a
      // request the network never answers, a promise that never settles), the spinner cannot
      // stay forever. The signal tells onRefresh to stop.
      later(() => {
        controller.abort()
        finish(false, { code: 'timeout' })
      }, o.timeout)

      setState('refreshing', o.hold, { source })
      // Through a promise, so an onRefresh that throws synchronously also ends in `error`.
      Promise.resolve({ signal: controller.signal, source })
        .then(o.onRefresh)
        .then(result => finish(true, result), error => finish(false, error))
    })
  }

  return {
    o,
    refresh,
    cancel,
    get state() {
      return state
    },
    get pull() {
      return pull
    },

    start(x, y, atTop) {
      // Only a finger that goes down with the content at the top may pull; while refreshing,
      // done or settling nothing starts (a pull must never promise a refresh it cannot do).
      tracking = atTop && (state === 'idle' || state === 'error')
      engaged = false
      startX = x
      startY = y
    },

    move(x, y, atTop) {
      if (!tracking) return false
      // No mid-gesture arming: once the content is not at the top, this gesture is scrolling,
      // for good. Otherwise scrolling up to the top and on past it would refresh by surprise.
      if (!atTop) {
        cancel()
        return false
      }
      const down = y - startY
      const sideways = Math.abs(x - startX)
      const downward = down > 0 && down >= sideways * DIRECTION_RATIO
      if (!engaged) {
        // Inside the dead zone nothing moves, but a downward move is already claimed (the caller
        // prevents it). Chrome decides on the FIRST cancelable touchmove: if that one is not
        // prevented, every later touchmove of the gesture is uncancelable and the pull would
        // have to fight the browser's scrolling.
        if (Math.hypot(sideways, down) < o.deadZone) return downward
        // Direction lock: leaving the dead zone sideways or upwards (scrolling the content)
        // hands the whole gesture to the browser.
        if (!downward) {
          tracking = false
          return false
        }
        engaged = true
      }
      // Resistance: 1:1 at first, stiffer the further it goes, never beyond `max`.
      const travel = Math.max(0, down - o.deadZone)
      const visual = (o.max * travel) / (travel + o.max)
      const threshold = o.threshold * (state === 'armed' ? DISARM_RATIO : 1)
      // While a refresh is refused (cooldown) the content still follows the finger but never
      // arms, so releasing never promises a refresh that will not happen.
      setState(!isBusy() && visual >= threshold ? 'armed' : 'pulling', visual)
      return true
    },

    end() {
      const wasPull = tracking && engaged
      tracking = false
      if (!wasPull) return
      if (state === 'armed') refresh('gesture')
      else settle()
    },

    destroy() {
      timers.clearTimeout(stateTimer)
      generation++
      tracking = false
      pull = 0
    },
  }
}
