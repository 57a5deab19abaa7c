// Marking what a refresh or the pill inserted at the top (Client/src/new-items.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { insertedAtTop, markNewItems } from '../../Client/src/new-items.mjs'

/** A list item with attributes, as far as the marking touches it. */
function item(id) {
  const attributes = new Map()
  return {
    id,
    nodeType: 1,
    tagName: 'LI',
    setAttribute: (name, value) => attributes.set(name, value),
    removeAttribute: name => attributes.delete(name),
    hasAttribute: name => attributes.has(name),
  }
}

function record(previousSibling, ...nodes) {
  return { type: 'childList', previousSibling, addedNodes: nodes }
}

test('items inserted at the top are marked, and unmarked when the timer runs', () => {
  const timers = []
  const [a, b] = [item('a'), item('b')]
  const text = { nodeType: 3 }
  const marked = markNewItems([record(null, a, text, b)], (run, ms) => timers.push([run, ms]), 5000)
  assert.deepEqual(marked, [a, b])
  assert.ok(a.hasAttribute('data-ptr-new') && b.hasAttribute('data-ptr-new'))
  assert.equal(timers.length, 1)
  assert.equal(timers[0][1], 5000)
  timers[0][0]()
  assert.ok(!a.hasAttribute('data-ptr-new') && !b.hasAttribute('data-ptr-new'))
})

test('older items appended at the end are not new', () => {
  const timers = []
  const last = item('last')
  const older = item('older')
  assert.equal(insertedAtTop(record(last, older)), false)
  assert.deepEqual(markNewItems([record(last, older)], run => timers.push(run)), [])
  assert.ok(!older.hasAttribute('data-ptr-new'))
  assert.equal(timers.length, 0)
})

test('removals and attribute changes mark nothing', () => {
  assert.equal(insertedAtTop({ type: 'childList', previousSibling: null, addedNodes: [] }), false)
  assert.equal(insertedAtTop({ type: 'attributes', previousSibling: null, addedNodes: [item('x')] }), false)
})
