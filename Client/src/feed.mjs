/**
 * This page's enhancements, built into Public/feed.js: for now the relative times of the items
 * and of "Last updated" (relative-time.mjs). They are features of the feed page, not of the
 * gesture, so they live in a bundle of their own and the gesture's stays within its budget.
 *
 * The page loads both scripts side by side, in parallel; this one imports nothing of the
 * gesture's. It hears about new items through the DOM alone: whoever inserts them (a refresh,
 * later older items or a live stream) adds children to `[data-ptr-list]`, and a refresh moves
 * the `datetime` of `[data-ptr-updated]`.
 * @module feed
 */

import { startRelativeTimes } from './relative-time.mjs'
import { startOlderItems } from './older-items.mjs'

const feed = document.querySelector('[data-ptr-lang]')
const lang = feed?.dataset.ptrLang || document.documentElement.lang || undefined
const renderTimes = startRelativeTimes(document, lang)

// A MutationObserver rather than the gesture's `ptr:done`: it also sees items that arrive by
// other means, and its callback runs in the insertion's own microtask checkpoint, before the
// gesture measures the new items to keep the reader's place (feed-list.mjs) and before the
// next paint, so no item is ever shown or measured with its server-rendered UTC text.
const observer = new MutationObserver(renderTimes)
// Only the lists' own children: the times' text, written by renderTimes, is not watched, so
// rendering never wakes the observer again.
for (const list of document.querySelectorAll('[data-ptr-list]')) {
  observer.observe(list, { childList: true })
}
// A time whose instant is changed in place ("Last updated" after a refresh).
observer.observe(document.body, { subtree: true, attributeFilter: ['datetime'] })

// Older items load in place as the reader nears the end of the list (older-items.mjs).
startOlderItems(document)
