// The default refresh's network call (Client/src/refresh-request.mjs) against a fake fetch:
// the request it makes and how answers and failures map to results and error codes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { requestNewItems } from '../../Client/src/refresh-request.mjs'
import { fake } from './fake-globals.mjs'

// Answers every fetch with `respond(url, init)` and records the calls.
function serve(respond, { online = true } = {}) {
  const calls = []
  fake('location', { href: 'http://127.0.0.1:8080/?lang=tr' })
  fake('navigator', { onLine: online })
  fake('fetch', async (url, init) => {
    calls.push({ url: String(url), init })
    return respond(url, init)
  })
  return calls
}

const signal = new AbortController().signal

test('POSTs to the endpoint with since=<version>, asking for HTML, with the signal', async () => {
  const calls = serve(() => new Response('<li>new</li>', {
    headers: { 'X-Feed-Version': '13', 'X-Feed-Updated-At': '2026-03-01T12:00:00Z' },
  }))
  const answer = await requestNewItems('/api/refresh', '12', signal)
  assert.equal(calls.length, 1)
  assert.equal(calls[0].url, 'http://127.0.0.1:8080/api/refresh?since=12')
  assert.equal(calls[0].init.method, 'POST')
  assert.deepEqual(calls[0].init.headers, { Accept: 'text/html' })
  assert.equal(calls[0].init.signal, signal)
  assert.deepEqual(answer, {
    html: '<li>new</li>',
    version: '13',
    epoch: null,
    updatedAt: '2026-03-01T12:00:00Z',
  })
})

test('a position goes out as since=<epoch>-<version>; the answer names its epoch', async () => {
  const calls = serve(() => new Response('<li>new</li>', {
    headers: { 'X-Feed-Version': '2', 'X-Feed-Epoch': 'mh9b3k2f1q', 'X-Feed-Updated-At': '2026-03-01T12:00:00Z' },
  }))
  const answer = await requestNewItems('/api/refresh?source=0123456789ab', 'mh9a00000a-12', signal)
  assert.equal(calls[0].url, 'http://127.0.0.1:8080/api/refresh?source=0123456789ab&since=mh9a00000a-12')
  assert.equal(answer.version, '2')
  assert.equal(answer.epoch, 'mh9b3k2f1q')
})

test('304 and 204 are "nothing new", not errors', async () => {
  for (const status of [204, 304]) {
    serve(() => new Response(null, { status }))
    const answer = await requestNewItems('/api/refresh', 3, signal)
    assert.equal(answer.html, '', String(status))
    assert.equal(answer.version, null)
  }
})

test('429 and 503 are busy, with Retry-After in seconds', async () => {
  for (const status of [429, 503]) {
    serve(() => new Response('{}', { status, headers: { 'Retry-After': '4' } }))
    await assert.rejects(requestNewItems('/api/refresh', 1, signal), { code: 'busy', retryAfter: 4 })
  }
  serve(() => new Response('{}', { status: 503 }))
  await assert.rejects(requestNewItems('/api/refresh', 1, signal), { code: 'busy', retryAfter: 0 })
})

test('other non-2xx answers fail with their status', async () => {
  for (const status of [400, 404, 500, 502]) {
    serve(() => new Response('{"error":{}}', { status }))
    await assert.rejects(requestNewItems('/api/refresh', 1, signal), { code: status })
  }
})

test('no answer at all: "offline" when the device is offline, else the error name', async () => {
  const fail = () => Promise.reject(new TypeError('Failed to fetch'))
  serve(fail, { online: false })
  await assert.rejects(requestNewItems('/api/refresh', 1, signal), { code: 'offline' })
  serve(fail, { online: true })
  await assert.rejects(requestNewItems('/api/refresh', 1, signal), { code: 'TypeError' })
  serve(() => Promise.reject(new DOMException('aborted', 'AbortError')))
  await assert.rejects(requestNewItems('/api/refresh', 1, signal), { code: 'AbortError' })
})

test('a live refresh GETs the items endpoint instead, keeping its own query', async () => {
  const calls = serve(() => new Response('<li>new</li>', { headers: { 'X-Feed-Version': '14' } }))
  const answer = await requestNewItems('/api/items?limit=100', '12', signal, 'GET')
  assert.equal(calls[0].url, 'http://127.0.0.1:8080/api/items?limit=100&since=12')
  assert.equal(calls[0].init.method, 'GET')
  assert.equal(calls[0].init.headers.Accept, 'text/html')
  assert.equal(answer.version, '14')
})
