/**
 * The list of items: inserting the new items a refresh brought without moving what the reader
 * is looking at, and the "N new items" pill that leads back to them.
 * @module feed-list
 */

import { newItemsText } from './announcer.mjs'

/**
 * @param {HTMLElement} root the scroll root
 * @param {import('./announcer.mjs').FindPart} part
 * @param {import('./announcer.mjs').TextLookup} text
 * @param {(target: EventTarget | null, type: string, handler: Function, passive?: boolean)
 *   => void} listen registers a listener that attach's destroy() removes
 * @returns {(html: string) => number} inserts a fragment's items at the top and says how many
 *   there were (none when the root has no `[data-ptr-list]`)
 */
export function createFeedList(root, part, text, listen) {
  const list = part('list')
  const pill = part('pill')
  if (!list) return () => 0
  /** New items above the reader since they last were at the top. */
  let unseen = 0

  // Back at the top, the reader sees the new items: the pill has done its job.
  listen(
    root,
    'scroll',
    () => {
      if (root.scrollTop < 1 && pill) {
        pill.hidden = true
        unseen = 0
      }
    },
    true,
  )
  // The pill scrolls to the top; the list takes focus, so focus is not lost when the pill hides.
  listen(pill, 'click', () => {
    list.tabIndex = -1
    list.focus()
    root.scrollTop = 0
  })

  // The fragment is the server's own escaped rendering of partials/item.mustache (never a
  // user's string): the one place this script parses HTML.
  return html => {
    const incoming = document.createElement('template')
    incoming.innerHTML = html
    // A catch-up (the page is from another epoch, or from an earlier run of the server) brings
    // items the page already shows: the new copy replaces the old one, so nothing is listed
    // twice and only items the page did not have count as added.
    const ids = new Set()
    for (const item of incoming.content.children) {
      if (item.dataset?.itemId) ids.add(item.dataset.itemId)
    }
    // What goes and the first item that stays: the one the scroll position is kept by.
    const replaced = []
    let first
    for (const item of list.children) {
      if (ids.has(item.dataset.itemId)) replaced.push(item)
      else first ||= item
    }
    const firstTop = first?.offsetTop
    const before = list.children.length
    for (const item of replaced) item.remove()
    list.prepend(incoming.content)
    // A replaced item is not new: the list only grows by the ones it did not have.
    const added = list.children.length - before
    // Scrolled away: keep what the reader sees where it is (overflow-anchor is off on the root,
    // so the browser does not correct a second time) and offer the pill instead.
    if (root.scrollTop > 1 && first) {
      // Measured in a microtask, not now: the page's MutationObservers (feed.js gives new items
      // their relative times) run first, since their microtask was queued by the insertion, so
      // the items' height is final. Still before the next paint: nothing visibly jumps.
      queueMicrotask(() => (root.scrollTop += first.offsetTop - firstTop))
      unseen += added
      if (pill && added) {
        pill.textContent = newItemsText(text, unseen)
        pill.hidden = false
      }
    }
    return added
  }
}
