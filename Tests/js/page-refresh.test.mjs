// Unit tests of this page's side of the gesture's refresh (Client/src/page-refresh.mjs): what a
// refresh asks for (`ptr:refresh` fills the context) and the merge policy (`ptr:items` removes the
// old copy of an item the fragment brings again, and gives back the height removed above the
// first item that stays). The real list in the browser: Tests/browser/test_epochs.py.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startPageRefresh } from '../../Client/src/page-refresh.mjs'

/** A list item 100 px tall; offsetTop follows its place in the list. */
function item(id, list) {
  return {
    dataset: { itemId: id },
    get offsetTop() {
      return list ? list.items.indexOf(this) * 100 : 0
    },
    remove() {
      list.items.splice(list.items.indexOf(this), 1)
    },
  }
}

/** A root with a list of `ids` (newest first), scrolled to `scrollTop`. */
function page(ids, scrollTop = 0) {
  const list = { items: [] }
  Object.defineProperty(list, 'children', { get: () => list.items })
  list.items = ids.map(id => item(id, list))
  const root = new EventTarget()
  root.dataset = { ptrVersion: '7', ptrEpoch: 'mh9a3k2f1q', ptrLiveEndpoint: '/api/items?limit=1' }
  root.scrollTop = scrollTop
  root.querySelector = selector => (selector === '[data-ptr-list]' ? list : null)
  startPageRefresh(root)
  return { root, list }
}

const refreshContext = (root, source) => {
  const detail = { signal: new AbortController().signal, source }
  root.dispatchEvent(new CustomEvent('ptr:refresh', { detail }))
  return detail
}

test('a refresh asks from the position with its epoch, by the default endpoint', () => {
  const { root } = page([])
  const context = refreshContext(root, 'gesture')
  assert.equal(context.since, 'mh9a3k2f1q-7')
  assert.equal(context.endpoint, undefined)
  assert.equal(context.method, undefined)
})

test('a page without an epoch asks with the bare version', () => {
  const { root } = page([])
  delete root.dataset.ptrEpoch
  assert.equal(refreshContext(root, 'button').since, '7')
})

test('the live refresh GETs the items endpoint live-updates set', () => {
  const { root } = page([])
  const context = refreshContext(root, 'live')
  assert.equal(context.endpoint, '/api/items?limit=1')
  assert.equal(context.method, 'GET')
  assert.equal(context.since, 'mh9a3k2f1q-7')
})

test('an item the page already shows loses its old copy; the reader keeps their place', () => {
  // Scrolled to the third item (200 px); items 3 and 2 come again, 3 above the first that stays.
  const { root, list } = page(['3', '1', '2', '0'], 200)
  const incoming = { children: [item('4'), item('3'), item('2')] }
  root.dispatchEvent(new CustomEvent('ptr:items', { detail: incoming }))
  assert.deepEqual(
    list.items.map(i => i.dataset.itemId),
    ['1', '0'],
  )
  // Item 1 moved up by the 100 px of item 3 removed above it: the scroll follows it.
  assert.equal(root.scrollTop, 100)
})

test('nothing is removed and nothing scrolls when the fragment brings only new items', () => {
  const { root, list } = page(['2', '1'], 150)
  root.dispatchEvent(new CustomEvent('ptr:items', { detail: { children: [item('3')] } }))
  assert.deepEqual(
    list.items.map(i => i.dataset.itemId),
    ['2', '1'],
  )
  assert.equal(root.scrollTop, 150)
})
