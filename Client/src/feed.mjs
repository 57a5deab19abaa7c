/**
 * This page's enhancements, built into Public/feed.js: the relative times of the items and of
 * "Last updated" (relative-time.mjs), live "N new items" (live-updates.mjs) and the offline copy
 * (offline.mjs, sw.mjs). They are features of the feed page, not of the
 * gesture, so they live in a bundle of their own and the gesture's stays within its budget.
 *
 * The page loads both scripts side by side, in parallel; this one imports nothing of the
 * gesture's at run time (the build copies in the few text helpers of announcer.mjs that the
 * live pill shares; it reaches the gesture only through `root.ptr`). It hears about new items
 * through the DOM alone: whoever inserts them (a refresh,
 * later older items or a live stream) adds children to `[data-ptr-list]`, and a refresh moves
 * the `datetime` of `[data-ptr-updated]`.
 * @module feed
 */

import { startRelativeTimes } from './relative-time.mjs'
import { startOlderItems } from './older-items.mjs'
import { startLiveUpdates } from './live-updates.mjs'
import {
  clearOfflineBannerWhenOnline,
  registerServiceWorker,
  showOfflineBanner,
} from './offline.mjs'
import { markNewItems } from './new-items.mjs'

const feed = document.querySelector('[data-ptr-lang]')
const lang = feed?.dataset.ptrLang || document.documentElement.lang || undefined
const renderTimes = startRelativeTimes(document, lang)

// A MutationObserver rather than the gesture's `ptr:done`: it also sees items that arrive by
// other means, and its callback runs in the insertion's own microtask checkpoint, before the
// gesture measures the new items to keep the reader's place (feed-list.mjs) and before the
// next paint, so no item is ever shown or measured with its server-rendered UTC text.
/** Hides the offline banner; set when the page is the worker's saved copy. */
let clearOfflineBanner = () => {}
const observer = new MutationObserver(records => {
  renderTimes()
  // Items a refresh or the pill inserted at the top are marked new for a few seconds.
  markNewItems(records)
  // A refresh reached the server ("Last updated" moved): the network is back.
  const updatedMoved = record =>
    record.type === 'attributes' && record.target.matches('[data-ptr-updated]')
  if (records.some(updatedMoved)) clearOfflineBanner()
})
// Only the lists' own children: the times' text, written by renderTimes, is not watched, so
// rendering never wakes the observer again.
for (const list of document.querySelectorAll('[data-ptr-list]')) {
  observer.observe(list, { childList: true })
}
// A time whose instant is changed in place ("Last updated" after a refresh).
observer.observe(document.body, { subtree: true, attributeFilter: ['datetime'] })

// Older items load in place as the reader nears the end of the list (older-items.mjs).
startOlderItems(document)

// Live "N new items" from the event stream, and the offline copy (live-updates.mjs, offline.mjs).
const pullRoot = document.querySelector('[data-pull-to-refresh]')
if (pullRoot) startLiveUpdates(pullRoot)
if (showOfflineBanner(document, lang)) {
  // The banner's saved-at time reads relative, like "Last updated" above it.
  renderTimes()
  clearOfflineBanner = clearOfflineBannerWhenOnline(document, window)
}
registerServiceWorker()
