// The offline banner (Client/src/offline.mjs): shown only on the service worker's saved copy,
// with the localized sentence around a <time> of when the copy was saved.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { clearOfflineBannerWhenOnline, showOfflineBanner } from '../../Client/src/offline.mjs'

/** A document with an optional saved-at mark and the banner element. */
function page(savedAt, text = 'Offline: showing the list from {time}.') {
  const banner = {
    hidden: true,
    dataset: { ptrOfflineText: text },
    children: [],
    replaceChildren(...nodes) {
      this.children = nodes
    },
  }
  const meta = savedAt && { getAttribute: name => (name === 'content' ? savedAt : null) }
  return {
    banner,
    doc: {
      querySelector: selector =>
        selector === '[data-ptr-offline]' ? banner : selector.startsWith('meta') ? meta : null,
      createElement: name => ({ name, dataset: {} }),
    },
  }
}

test('a page from the network shows no banner', () => {
  const { doc, banner } = page(null)
  assert.equal(showOfflineBanner(doc, 'en'), false)
  assert.equal(banner.hidden, true)
})

test('the saved copy says since when, the time as a <time> element', () => {
  const { doc, banner } = page('2026-12-01T09:40:00.000Z')
  assert.equal(showOfflineBanner(doc, 'en'), true)
  assert.equal(banner.hidden, false)
  const [before, time, after] = banner.children
  assert.equal(before, 'Offline: showing the list from ')
  assert.equal(after, '.')
  assert.equal(time.name, 'time')
  assert.equal(time.dateTime, '2026-12-01T09:40:00.000Z')
  const expected = new Date('2026-12-01T09:40:00.000Z')
    .toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' })
  assert.equal(time.textContent, expected)
})

test('the saved-at time is a relative time and the banner clears when the network is back', () => {
  const { doc, banner } = page('2026-12-01T09:40:00.000Z')
  const time = { name: 'time', dataset: {} }
  doc.createElement = () => time
  const listeners = {}
  const win = { addEventListener: (type, fn) => (listeners[type] = fn) }
  assert.equal(showOfflineBanner(doc, 'en'), true)
  assert.equal(time.dataset.ptrTime, '')
  const clear = clearOfflineBannerWhenOnline(doc, win)
  assert.equal(banner.hidden, false)
  listeners.online()
  assert.equal(banner.hidden, true)
  // A refresh that reached the server (feed.mjs calls the function) clears it too.
  banner.hidden = false
  clear()
  assert.equal(banner.hidden, true)
})
