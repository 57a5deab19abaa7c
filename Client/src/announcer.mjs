/**
 * Announcing a state change: the `ptr:*` event for the page's scripts, the localized string the
 * indicator and the live region show, and the accessibility bookkeeping that goes with it
 * (`aria-busy`, Retry's visibility, focus). Strings come from the root's `data-ptr-text-*`
 * attributes, so the server renders them in the page's language and the script carries none.
 * @module announcer
 */

/**
 * What each state says when it is entered, as `[event, text]`: the event it dispatches (`ptr:` +
 * the name) and the `data-ptr-text-*` string of the indicator. Idle and settling say nothing.
 */
const STATES = {
  pulling: ['pullstart', 'Pull'],
  armed: ['armed', 'Release'],
  refreshing: ['refresh', 'Refreshing'],
  done: ['done', 'Updated'],
  error: ['error', 'Error'],
}

/** Errors with a more helpful text than the generic one. */
const ERROR_TEXT = { offline: 'Offline', busy: 'Busy' }

/**
 * @callback TextLookup the localized string `key` (`'UpToDate'` → `data-ptr-text-up-to-date`)
 *   with `{n}` replaced by `n`; '' when the page does not provide it
 * @param {string} key
 * @param {number} [n]
 * @returns {string}
 */

/**
 * @callback FindPart the root's optional part `[data-ptr-<name>]`, `null` when the page has none
 * @param {string} name
 * @returns {HTMLElement | null}
 */

/**
 * @param {DOMStringMap | Record<string, string>} dataset the root's
 * @returns {TextLookup}
 */
export function createTexts(dataset) {
  return (key, n) => (dataset['ptrText' + key] || '').replace('{n}', n)
}

/**
 * "1 new item" / "{n} new items".
 * @param {TextLookup} text
 * @param {number} count
 */
export function newItemsText(text, count) {
  return text(count > 1 ? 'New' : 'NewOne', count)
}

/**
 * The indicator's text for a state; '' for idle and settling, which keep the current text (the
 * last result stays while the indicator slides away).
 * @param {string} state
 * @param {any} info what the state machine passed with the transition
 * @param {TextLookup} text
 */
export function indicatorText(state, info, text) {
  if (state === 'done' && info?.added === 0) return text('UpToDate')
  const key = (state === 'error' && ERROR_TEXT[info?.code]) || STATES[state]?.[1]
  return key ? text(key) : ''
}

/**
 * What the live region says for a state, or `null`: only the start of a refresh and its outcome
 * are announced (announcing every pull state would talk over what the screen reader is reading),
 * and "N new items" says more than "Updated".
 * @param {string} state
 * @param {any} info
 * @param {TextLookup} text
 */
export function announcementFor(state, info, text) {
  if (state !== 'refreshing' && state !== 'done' && state !== 'error') return null
  return info?.added > 0 ? newItemsText(text, info.added) : indicatorText(state, info, text)
}

/**
 * The function that announces a state change: the event on `root`, then the optional parts
 * `[data-ptr-text]` (the indicator's text), `[data-ptr-status]` (a
 * `role="status"` live region), `[data-ptr-list]` (`aria-busy` while refreshing),
 * `[data-ptr-retry]` (shown only in `error`) and `[data-ptr-button]` (the page's Refresh button).
 * @param {HTMLElement} root the events' target
 * @param {FindPart} part
 * @param {TextLookup} text
 * @returns {(state: string, previous: string | undefined, info: any) => void} `previous` is the
 *   state that was left
 */
export function createAnnouncer(root, part, text) {
  const shownText = part('text')
  const liveRegion = part('status')
  const list = part('list')
  const retry = part('retry')
  const button = part('button')

  return (state, previous, info) => {
    // Disarming (armed → pulling) is still the same pull: no second pullstart.
    const event = previous === 'armed' && state === 'pulling' ? null : STATES[state]?.[0]
    if (event) root.dispatchEvent(new CustomEvent('ptr:' + event, { bubbles: true, detail: info }))
    const shown = indicatorText(state, info, text)
    const announcement = announcementFor(state, info, text)
    if (shown && shownText) shownText.textContent = shown
    if (announcement != null && liveRegion) liveRegion.textContent = announcement
    list?.setAttribute('aria-busy', state === 'refreshing')
    if (retry) {
      // Retry disappears when the error is over. If it had focus, hand focus to the Refresh
      // button rather than dropping it on <body>; nothing else ever moves focus.
      if (state !== 'error' && document.activeElement === retry) button?.focus()
      retry.hidden = state !== 'error'
    }
  }
}
