/**
 * This page's side of the gesture's default refresh, through the gesture's two hooks
 * (docs/gesture.md): what a refresh asks for (`ptr:refresh`: the position with its epoch, and
 * for a `live` refresh the items the event stream announced) and how its answer merges into the
 * list (`ptr:items`: an item the page already shows is replaced, not listed twice). They are
 * this feed's protocol and merge policy, so they live in feed.js, outside the gesture's budget.
 * @module page-refresh
 */

import { pagePosition, sinceParam } from './feed-position.mjs'

/**
 * @param {HTMLElement} root the `[data-pull-to-refresh]` root
 */
export function startPageRefresh(root) {
  const data = root.dataset
  const list = root.querySelector('[data-ptr-list]')

  root.addEventListener('ptr:refresh', ({ detail }) => {
    // The epoch too: a version number alone can repeat in a new epoch, and the server reads a
    // position from another epoch as 0 and sends every item (feed-position.mjs).
    detail.since = sinceParam(pagePosition(data))
    // The pill's live tap (live-updates.mjs) fetches the items it heard of: a GET from the
    // items endpoint live-updates.mjs set, and the server reloads nothing.
    if (detail.source === 'live') {
      detail.endpoint = data.ptrLiveEndpoint
      detail.method = 'GET'
    }
  })

  // A catch-up (the page is from another epoch, or from an earlier run of the server) brings
  // items the page already shows: the new copy, at the top, replaces the old one, so nothing is
  // listed twice, and the gesture counts only the list's growth as added.
  root.addEventListener('ptr:items', ({ detail: incoming }) => {
    if (!list) return
    const ids = new Set()
    for (const item of incoming.children) {
      if (item.dataset?.itemId) ids.add(item.dataset.itemId)
    }
    const replaced = [...list.children].filter(item => ids.has(item.dataset.itemId))
    if (!replaced.length) return
    // The first item that stays keeps its place on screen: the gesture keeps the reader's
    // place from the list as this leaves it, so the height removed above it is given back here.
    const first = [...list.children].find(item => !ids.has(item.dataset.itemId))
    const firstTop = first?.offsetTop
    for (const item of replaced) item.remove()
    if (first && root.scrollTop > 1) root.scrollTop += first.offsetTop - firstTop
  })
}
