// Which text the indicator shows and what the live region announces in each state
// (Client/src/announcer.mjs), with the strings a page would put in data-ptr-text-*.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  announcementFor,
  createTexts,
  indicatorText,
  newItemsText,
} from '../../Client/src/announcer.mjs'

// What element.dataset looks like for the English page.
const dataset = {
  ptrTextPull: 'Pull to refresh',
  ptrTextRelease: 'Release to refresh',
  ptrTextRefreshing: 'Refreshing…',
  ptrTextUpdated: 'Updated',
  ptrTextUpToDate: 'Up to date',
  ptrTextError: "Couldn't refresh",
  ptrTextOffline: "You're offline",
  ptrTextBusy: 'Server busy, try again shortly',
  ptrTextNew: '{n} new items',
  ptrTextNewOne: '1 new item',
}
const text = createTexts(dataset)

test('strings come from data-ptr-text-*; a missing one is empty', () => {
  assert.equal(text('UpToDate'), 'Up to date')
  assert.equal(text('New', 7), '7 new items')
  assert.equal(createTexts({})('Pull'), '')
})

test('new items: one, many', () => {
  assert.equal(newItemsText(text, 1), '1 new item')
  assert.equal(newItemsText(text, 3), '3 new items')
})

test('indicator text per state; idle and settling keep the current one', () => {
  assert.equal(indicatorText('pulling', undefined, text), 'Pull to refresh')
  assert.equal(indicatorText('armed', undefined, text), 'Release to refresh')
  assert.equal(indicatorText('refreshing', { source: 'gesture' }, text), 'Refreshing…')
  assert.equal(indicatorText('done', { added: 2 }, text), 'Updated')
  assert.equal(indicatorText('done', { added: 0 }, text), 'Up to date')
  assert.equal(indicatorText('done', undefined, text), 'Updated')
  assert.equal(indicatorText('idle', undefined, text), '')
  assert.equal(indicatorText('settling', undefined, text), '')
})

test('errors: offline and busy have their own text, everything else the generic one', () => {
  assert.equal(indicatorText('error', { code: 'offline' }, text), "You're offline")
  assert.equal(indicatorText('error', { code: 'busy', retryAfter: 2 }, text),
    'Server busy, try again shortly')
  for (const info of [{ code: 502 }, { code: 'timeout' }, { code: 'TypeError' }, undefined]) {
    assert.equal(indicatorText('error', info, text), "Couldn't refresh", JSON.stringify(info))
  }
})

test('the live region announces the start and the outcome only', () => {
  assert.equal(announcementFor('pulling', undefined, text), null)
  assert.equal(announcementFor('armed', undefined, text), null)
  assert.equal(announcementFor('settling', undefined, text), null)
  assert.equal(announcementFor('idle', undefined, text), null)
  assert.equal(announcementFor('refreshing', { source: 'api' }, text), 'Refreshing…')
  assert.equal(announcementFor('done', { added: 3 }, text), '3 new items')
  assert.equal(announcementFor('done', { added: 1 }, text), '1 new item')
  assert.equal(announcementFor('done', { added: 0 }, text), 'Up to date')
  assert.equal(announcementFor('error', { code: 'offline' }, text), "You're offline")
})
