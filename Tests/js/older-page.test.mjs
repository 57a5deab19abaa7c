// A page of older items without the DOM (Client/src/older-page.mjs): the request an "Older
// items" link stands for, how answers and failures map to results and error codes (against a
// fake fetch), de-duplication by id, and the announcement texts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  createOlderTexts,
  errorText,
  freshItems,
  loadedAnnouncement,
  olderItemsURL,
  requestOlderItems,
} from '../../Client/src/older-page.mjs'
import { fake } from './fake-globals.mjs'

// Answers every fetch with `respond(url, init)` and records the calls.
function serve(respond, { online = true } = {}) {
  const calls = []
  fake('navigator', { onLine: online })
  fake('fetch', async (url, init) => {
    calls.push({ url: String(url), init })
    return respond(url, init)
  })
  return calls
}

const PAGE = 'http://127.0.0.1:8080'

test('the request: /api/items with the cursor and the page size, on the link\'s origin', () => {
  const url = olderItemsURL({
    href: `${PAGE}/?before=1795960421463.11&layout=grid`,
    cursor: '1795960421463.11',
    pageSize: '30',
  })
  assert.equal(url.href, `${PAGE}/api/items?cursor=1795960421463.11&limit=30`)
})

test('a page of one source of a river asks for that source\'s older items', () => {
  const url = olderItemsURL({ href: `${PAGE}/?before=9.1&source=0123456789ab`, cursor: '9.1' })
  assert.equal(url.searchParams.get('source'), '0123456789ab')
  assert.equal(olderItemsURL({ href: `${PAGE}/?before=9.1`, cursor: '9.1' }).searchParams.has('source'), false)
})

test('lang only when the link carries one (the reader chose it)', () => {
  const chosen = olderItemsURL({ href: `${PAGE}/?before=9.1&lang=tr`, cursor: '9.1' })
  assert.equal(chosen.searchParams.get('lang'), 'tr')
  const negotiated = olderItemsURL({ href: `${PAGE}/?before=9.1`, cursor: '9.1' })
  assert.equal(negotiated.searchParams.has('lang'), false)
})

test('a cursor with characters of its own is sent encoded, exactly; no page size, no limit', () => {
  const url = olderItemsURL({ href: `${PAGE}/?before=x`, cursor: 'a b&c=d/é' })
  assert.equal(url.searchParams.get('cursor'), 'a b&c=d/é')
  assert.equal(url.searchParams.has('limit'), false)
})

test('GETs the URL asking for HTML, with the signal; the next cursor from its header', async () => {
  const calls = serve(() => new Response('<li class="item" data-item-id="7"></li>', {
    headers: { 'X-Feed-Next-Cursor': '1795960000000.7', 'X-Feed-Version': '3' },
  }))
  const signal = new AbortController().signal
  const answer = await requestOlderItems(`${PAGE}/api/items?cursor=1&limit=30`, signal)
  assert.equal(calls.length, 1)
  assert.equal(calls[0].url, `${PAGE}/api/items?cursor=1&limit=30`)
  assert.equal(calls[0].init.method, undefined, 'a GET')
  assert.deepEqual(calls[0].init.headers, { Accept: 'text/html' })
  assert.equal(calls[0].init.signal, signal)
  assert.deepEqual(answer, {
    html: '<li class="item" data-item-id="7"></li>',
    nextCursor: '1795960000000.7',
  })
})

test('the last page: no X-Feed-Next-Cursor (or an empty one) is no next cursor', async () => {
  serve(() => new Response('<li></li>'))
  assert.equal((await requestOlderItems(`${PAGE}/api/items`)).nextCursor, null)
  serve(() => new Response('', { headers: { 'X-Feed-Next-Cursor': '' } }))
  assert.deepEqual(await requestOlderItems(`${PAGE}/api/items`), { html: '', nextCursor: null })
})

test('a refused cursor (400, the JSON envelope), other non-2xx: their status', async () => {
  for (const status of [400, 404, 500, 502]) {
    serve(() => new Response('{"error":{"code":"invalid_cursor","message":"…"}}', { status }))
    await assert.rejects(requestOlderItems(`${PAGE}/api/items?cursor=zz`), { code: status })
  }
})

test('429 and 503 are busy', async () => {
  for (const status of [429, 503]) {
    serve(() => new Response('{}', { status, headers: { 'Retry-After': '4' } }))
    await assert.rejects(requestOlderItems(`${PAGE}/api/items`), { code: 'busy' })
  }
})

test('no answer at all: "offline" when the device is offline, else the error name', async () => {
  const fail = () => Promise.reject(new TypeError('Failed to fetch'))
  serve(fail, { online: false })
  await assert.rejects(requestOlderItems(`${PAGE}/api/items`), { code: 'offline' })
  serve(fail, { online: true })
  await assert.rejects(requestOlderItems(`${PAGE}/api/items`), { code: 'TypeError' })
  serve(() => Promise.reject(new DOMException('aborted', 'AbortError')))
  await assert.rejects(requestOlderItems(`${PAGE}/api/items`), { code: 'AbortError' })
})

test('a body that fails half way is a failure too, not a page', async () => {
  serve(() => ({
    ok: true,
    status: 200,
    headers: new Headers({ 'X-Feed-Next-Cursor': '5' }),
    text: () => Promise.reject(new TypeError('network error')),
  }))
  await assert.rejects(requestOlderItems(`${PAGE}/api/items`), { code: 'TypeError' })
})

const byId = item => item.id

test('fresh items: those the list lacks, in order; ids compared as strings', () => {
  const candidates = [{ id: '5' }, { id: '4' }, { id: '3' }, { id: '2' }]
  assert.deepEqual(freshItems(candidates, byId, [7, 6, 5, '4']), [{ id: '3' }, { id: '2' }])
  assert.deepEqual(freshItems(candidates, byId, []), candidates)
})

test('fresh items: opaque string ids, and a repeat inside the page itself, kept once', () => {
  const candidates = [{ id: 'b7Kq' }, { id: '01' }, { id: 'b7Kq' }, { id: '1' }]
  // '01' and '1' are different ids: nothing is parsed as a number.
  assert.deepEqual(freshItems(candidates, byId, ['1']), [{ id: 'b7Kq' }, { id: '01' }])
})

test('fresh items: one without an id is kept; a known one without an id matches none', () => {
  const candidates = [{ id: undefined }, { id: '9' }]
  assert.deepEqual(freshItems(candidates, byId, [undefined, null]), candidates)
})

test('fresh items from a live collection-like iterable (what a template\'s children are)', () => {
  function* children() {
    yield { id: '2' }
    yield { id: '1' }
  }
  assert.deepEqual(freshItems(children(), byId, new Set(['2'])), [{ id: '1' }])
})

// The page's strings: the Older link's own, and the gesture's on the feed root.
const en = createOlderTexts(
  {
    textLoaded: '{n} older items loaded.',
    textLoadedOne: '1 older item loaded.',
    textEnd: "That's the end of the feed.",
    textError: "Couldn't load older items",
  },
  { ptrTextOffline: "You're offline", ptrTextBusy: 'Server busy, try again shortly' },
)

test('texts: the container\'s own first, else the gesture\'s, else nothing', () => {
  const text = createOlderTexts({ textRetry: 'Again' }, { ptrTextRetry: 'Retry' })
  assert.equal(text('Retry'), 'Again')
  assert.equal(createOlderTexts({}, { ptrTextRetry: 'Retry' })('Retry'), 'Retry')
  assert.equal(createOlderTexts({})('Retry'), '')
})

test('announcements: the count, the singular, the end of the feed', () => {
  assert.equal(loadedAnnouncement(en, 30, false), '30 older items loaded.')
  assert.equal(loadedAnnouncement(en, 1, false), '1 older item loaded.')
  assert.equal(
    loadedAnnouncement(en, 12, true),
    "12 older items loaded. That's the end of the feed.",
  )
  assert.equal(loadedAnnouncement(en, 0, true), "That's the end of the feed.")
  // Nothing new and more to come (every item was a duplicate): the next page is on its way.
  assert.equal(loadedAnnouncement(en, 0, false), '')
})

test('announcements in the page\'s language come from its strings', () => {
  const ja = createOlderTexts({ textLoaded: '古い項目を {n} 件読み込みました。' })
  assert.equal(loadedAnnouncement(ja, 30, false), '古い項目を 30 件読み込みました。')
})

test('error texts: offline and busy have their own, everything else the generic one', () => {
  assert.equal(errorText(en, { code: 'offline' }), "You're offline")
  assert.equal(errorText(en, { code: 'busy' }), 'Server busy, try again shortly')
  for (const code of [400, 502, 'TypeError', 'AbortError', 'constructor', undefined]) {
    assert.equal(errorText(en, { code }), "Couldn't load older items", String(code))
  }
  // A page without the specific strings still says something.
  assert.equal(errorText(createOlderTexts({ textError: 'Error' }), { code: 'offline' }), 'Error')
})
