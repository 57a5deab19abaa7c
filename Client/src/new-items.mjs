/**
 * Marks the items a refresh or the live pill just put at the top of the list as new
 * (`data-ptr-new`, styled by app.css) for a few seconds, so the reader sees what changed. The
 * live region still announces them, as before. Older items appended at the end are not new.
 * @module new-items
 */

/** How long an item stays marked. */
export const NEW_ITEM_MS = 6000

/**
 * Whether a list mutation inserted items at the top: nothing was before them.
 * @param {MutationRecord} record
 */
export function insertedAtTop(record) {
  return (
    record.type === 'childList' && record.previousSibling === null && record.addedNodes.length > 0
  )
}

/**
 * Marks the `<li>`s of the top insertions among `records`, and unmarks them after `ms`.
 * @param {MutationRecord[]} records
 * @param {(callback: () => void, ms: number) => unknown} [later] setTimeout, or a fake clock
 * @param {number} [ms]
 * @returns {Element[]} the items marked
 */
export function markNewItems(records, later = setTimeout, ms = NEW_ITEM_MS) {
  const marked = []
  for (const record of records) {
    if (!insertedAtTop(record)) continue
    for (const node of record.addedNodes) {
      if (node.nodeType === 1 && node.tagName === 'LI') marked.push(node)
    }
  }
  for (const item of marked) item.setAttribute('data-ptr-new', '')
  if (marked.length) later(() => marked.forEach(item => item.removeAttribute('data-ptr-new')), ms)
  return marked
}
