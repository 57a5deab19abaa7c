/**
 * Where a page is in the feed's history: a version within an epoch (the server's `epoch`, in
 * base 36). Version numbers compare only within one epoch: when the shared store was emptied and
 * seeded again, the new epoch counts from 1 again with other items, and is newer whatever its
 * numbers say. The server reads a `since` from another epoch as 0 and sends everything.
 * @module feed-position
 */

/**
 * @typedef {object} FeedPosition
 * @property {string} epoch the epoch's tag; empty when unknown (a page from before epochs)
 * @property {number} version the version within it
 */

/**
 * The position a page shows, from its root's `data-ptr-epoch` and `data-ptr-version`.
 * @param {DOMStringMap} data the root's dataset
 * @returns {FeedPosition}
 */
export function pagePosition(data) {
  return { epoch: data.ptrEpoch || '', version: Number(data.ptrVersion) || 0 }
}

/**
 * The `since` parameter for a position: `<epoch>-<version>`, or the bare version without an epoch.
 * @param {FeedPosition} position
 * @returns {string}
 */
export function sinceParam(position) {
  return position.epoch ? `${position.epoch}-${position.version}` : `${position.version}`
}

/**
 * Whether `a` comes after `b`: a later epoch, or a higher version in the same one. A position
 * without an epoch is compared by its version alone.
 * @param {FeedPosition} a
 * @param {FeedPosition} b
 * @returns {boolean}
 */
export function isAfter(a, b) {
  if (!a.epoch || !b.epoch || a.epoch === b.epoch) return a.version > b.version
  // Tags are microseconds since 1970 in base 36: well within a double's exact integers.
  return parseInt(a.epoch, 36) > parseInt(b.epoch, 36)
}
