// Live updates (Client/src/live-updates.mjs) against a fake EventSource and a small fake DOM:
// the stream follows visibility, reconnects with ?since=, events fill the pill without touching
// the list, and a tap hands over to the gesture's refresh with source 'live'.
import { afterEach, test } from 'node:test'
import assert from 'node:assert/strict'
import { startLiveUpdates } from '../../Client/src/live-updates.mjs'

const saved = {}
function fake(name, value) {
  if (!(name in saved)) saved[name] = Object.getOwnPropertyDescriptor(globalThis, name)
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true })
}
const started = []
afterEach(() => {
  for (const live of started.splice(0)) live.stop()
  for (const [name, descriptor] of Object.entries(saved)) {
    if (descriptor) Object.defineProperty(globalThis, name, descriptor)
    else delete globalThis[name]
    delete saved[name]
  }
})

/** An EventTarget with the few element properties the module reads. */
function element(props = {}) {
  return Object.assign(new EventTarget(), { dataset: {}, hidden: true, textContent: '' }, props)
}

/** Installs the fakes; returns the root, its pill, the streams opened and the observers. */
function setUp({ version = '3', epoch, visible = true } = {}) {
  const streams = []
  const observers = []
  class FakeEventSource extends EventTarget {
    constructor(url) {
      super()
      this.url = String(url)
      this.closed = false
      streams.push(this)
    }
    close() {
      this.closed = true
    }
    send(data) {
      this.dispatchEvent(Object.assign(new Event('version'), { data: JSON.stringify(data) }))
    }
  }
  class FakeMutationObserver {
    constructor(callback) {
      this.callback = callback
      observers.push(this)
    }
    observe() {}
    disconnect() {}
  }
  const doc = Object.assign(new EventTarget(), { visibilityState: visible ? 'visible' : 'hidden' })
  fake('EventSource', FakeEventSource)
  fake('MutationObserver', FakeMutationObserver)
  fake('document', doc)
  fake('window', new EventTarget())
  fake('location', { href: 'http://127.0.0.1:8080/' })
  const pill = element()
  const refreshes = []
  const root = element({
    scrollTop: 400,
    querySelector: selector => (selector === '[data-ptr-pill]' ? pill : null),
    ptr: {
      refresh: source => {
        refreshes.push(source)
        return Promise.resolve(true)
      },
    },
  })
  root.dataset = { ptrVersion: version, ptrTextNew: '{n} new items', ptrTextNewOne: '1 new item' }
  if (epoch) root.dataset.ptrEpoch = epoch
  const live = startLiveUpdates(root)
  started.push(live)
  /** Moves the version on screen as a refresh does, and lets the observer hear it. */
  const moveVersion = (to, toEpoch) => {
    if (toEpoch) root.dataset.ptrEpoch = toEpoch
    root.dataset.ptrVersion = String(to)
    for (const observer of observers) observer.callback([])
  }
  const setVisibility = state => {
    doc.visibilityState = state
    doc.dispatchEvent(new Event('visibilitychange'))
  }
  return { root, pill, streams, refreshes, moveVersion, setVisibility }
}

test('a visible page opens one stream with since=<version on screen>', () => {
  const { streams, root } = setUp({ version: '7' })
  assert.equal(streams.length, 1)
  assert.equal(streams[0].url, 'http://127.0.0.1:8080/api/events?since=7')
  assert.equal(root.dataset.ptrLiveEndpoint, '/api/items?limit=100')
})

test('a hidden page has no stream; visible again it reconnects from the newest known version', () => {
  const { streams, setVisibility } = setUp({ version: '3' })
  streams[0].send({ version: 5, updatedAt: '2026-12-01T09:00:00Z', added: 4 })
  setVisibility('hidden')
  assert.equal(streams[0].closed, true)
  setVisibility('visible')
  assert.equal(streams.length, 2)
  assert.equal(streams[1].url, 'http://127.0.0.1:8080/api/events?since=5')
})

test('events add up in the pill, older or repeated versions are ignored', () => {
  const { streams, pill } = setUp({ version: '3' })
  streams[0].send({ version: 4, updatedAt: '', added: 1 })
  assert.equal(pill.hidden, false)
  assert.equal(pill.textContent, '1 new item')
  assert.equal(pill.dataset.ptrPillMode, 'live')
  streams[0].send({ version: 4, updatedAt: '', added: 1 })
  streams[0].send({ version: 3, updatedAt: '', added: 9 })
  streams[0].send({ version: 6, updatedAt: '', added: 2 })
  assert.equal(pill.textContent, '3 new items')
})

test('with an epoch the stream opens from the position, <epoch>-<version>', () => {
  const { streams } = setUp({ version: '7', epoch: 'mh9a00000a' })
  assert.equal(streams[0].url, 'http://127.0.0.1:8080/api/events?since=mh9a00000a-7')
})

test('an event of a later epoch is news whatever its number, and its count replaces the pending one', () => {
  const { streams, pill, setVisibility } = setUp({ version: '40', epoch: 'mh9a00000a' })
  streams[0].send({ version: 41, epoch: 'mh9a00000a', updatedAt: '', added: 2 })
  assert.equal(pill.textContent, '2 new items')
  // Redis was emptied and seeded again: version 3 of the new epoch, `added` counts every item.
  streams[0].send({ version: 3, epoch: 'mh9b00000b', updatedAt: '', added: 45 })
  assert.equal(pill.textContent, '45 new items')
  // Within the new epoch numbers compare again: 2 is old news, 4 adds its one.
  streams[0].send({ version: 2, epoch: 'mh9b00000b', updatedAt: '', added: 9 })
  streams[0].send({ version: 4, epoch: 'mh9b00000b', updatedAt: '', added: 1 })
  assert.equal(pill.textContent, '46 new items')
  // An event of the old epoch (an instance that has not adopted yet) is not news.
  streams[0].send({ version: 90, epoch: 'mh9a00000a', updatedAt: '', added: 5 })
  assert.equal(pill.textContent, '46 new items')
  setVisibility('hidden')
  setVisibility('visible')
  assert.equal(streams[1].url, 'http://127.0.0.1:8080/api/events?since=mh9b00000b-4')
})

test('a page that refreshed into a later epoch reopens from its own position', () => {
  const { streams, moveVersion, setVisibility } = setUp({ version: '40', epoch: 'mh9a00000a' })
  moveVersion(2, 'mh9b00000b')
  setVisibility('hidden')
  setVisibility('visible')
  assert.equal(streams[1].url, 'http://127.0.0.1:8080/api/events?since=mh9b00000b-2')
})

test('tapping the live pill runs the gesture refresh with source live, once', async () => {
  const { streams, pill, refreshes } = setUp()
  streams[0].send({ version: 4, updatedAt: '', added: 2 })
  pill.dispatchEvent(new Event('click'))
  pill.dispatchEvent(new Event('click'))
  assert.deepEqual(refreshes, ['live'])
  assert.equal(pill.dataset.ptrPillMode, undefined)
})

test('a refused live refresh offers the pill again', async () => {
  const { streams, pill, root } = setUp()
  root.ptr.refresh = () => Promise.resolve(false)
  streams[0].send({ version: 4, updatedAt: '', added: 2 })
  pill.dispatchEvent(new Event('click'))
  pill.hidden = true
  await Promise.resolve()
  await Promise.resolve()
  assert.equal(pill.dataset.ptrPillMode, 'live')
  assert.equal(pill.hidden, false)
})

test('a refresh that moved the version clears the count; at the top the pill hides', () => {
  const { streams, pill, root, moveVersion } = setUp({ version: '3' })
  streams[0].send({ version: 4, updatedAt: '', added: 2 })
  root.scrollTop = 0
  moveVersion(4)
  assert.equal(pill.hidden, true)
  assert.equal(pill.dataset.ptrPillMode, undefined)
  streams[0].send({ version: 5, updatedAt: '', added: 1 })
  assert.equal(pill.textContent, '1 new item')
})

test('the gesture hiding the pill on a scroll to the top does not drop announced items', () => {
  const { streams, pill, root } = setUp()
  streams[0].send({ version: 4, updatedAt: '', added: 2 })
  pill.hidden = true
  root.dispatchEvent(new Event('scroll'))
  assert.equal(pill.hidden, false)
})

test('without EventSource nothing starts', () => {
  fake('EventSource', undefined)
  const pill = element()
  const root = element({ querySelector: () => pill })
  const live = startLiveUpdates(root)
  live.stop()
  assert.equal(root.dataset.ptrLiveEndpoint, undefined)
})
