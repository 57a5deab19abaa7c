// Relative times (Client/src/relative-time.mjs): the choice of unit and the formatting in the
// page's languages. The DOM part (startRelativeTimes) is covered by the browser suite.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  absoluteText,
  createRelativeFormat,
  relativeParts,
} from '../../Client/src/relative-time.mjs'

const MINUTE = 60
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

test('under a minute, past or future, is "now" (the text only changes once a minute)', () => {
  for (const seconds of [0, -1, -59.9, 30, 59]) {
    assert.deepEqual(relativeParts(seconds), [0, 'second'], String(seconds))
  }
})

test('the largest unit that fits, truncated toward zero', () => {
  const cases = [
    [-MINUTE, [-1, 'minute']],
    [-5 * MINUTE - 59, [-5, 'minute']],
    [-59 * MINUTE - 59, [-59, 'minute']],
    [-HOUR, [-1, 'hour']],
    [-23 * HOUR - 59 * MINUTE, [-23, 'hour']],
    [-DAY, [-1, 'day']],
    [-6 * DAY, [-6, 'day']],
    [-7 * DAY, [-1, 'week']],
    [-29 * DAY, [-4, 'week']],
    [-31 * DAY, [-1, 'month']],
    [-200 * DAY, [-6, 'month']],
    [-364 * DAY, [-11, 'month']],
    [-366 * DAY, [-1, 'year']],
    [-3 * 366 * DAY, [-3, 'year']],
    [5 * MINUTE, [5, 'minute']],
    [2 * HOUR + 1, [2, 'hour']],
  ]
  for (const [seconds, expected] of cases) {
    assert.deepEqual(relativeParts(seconds), expected, `${seconds} s`)
  }
})

test('not a time (NaN) is not a unit', () => {
  assert.deepEqual(relativeParts(NaN), [0, 'second'])
})

test('"5 minutes ago" in each of the page languages', () => {
  const now = Date.parse('2026-03-01T12:00:00Z')
  const fiveMinutesAgo = new Date(now - 5 * 60 * 1000 - 20 * 1000)
  const expected = {
    en: '5 minutes ago',
    tr: '5 dakika önce',
    ko: '5분 전',
    // CLDR writes Japanese with a space between the number and the unit.
    ja: /^5\s?分前$/,
  }
  for (const [lang, text] of Object.entries(expected)) {
    const said = createRelativeFormat(lang)(fiveMinutesAgo, now)
    if (text instanceof RegExp) assert.match(said, text, lang)
    else assert.equal(said, text, lang)
  }
})

test('numeric: auto gives the natural words: now, yesterday, last week', () => {
  const now = Date.parse('2026-03-01T12:00:00Z')
  const format = createRelativeFormat('en')
  assert.equal(format(new Date(now - 10 * 1000), now), 'now')
  assert.equal(format(new Date(now - 30 * HOUR * 1000), now), 'yesterday')
  assert.equal(format(new Date(now - 8 * DAY * 1000), now), 'last week')
  assert.equal(format(new Date(now - 3 * HOUR * 1000), now), '3 hours ago')
  assert.equal(createRelativeFormat('tr')(new Date(now - 30 * HOUR * 1000), now), 'dün')
})

test('an empty language falls back to the default instead of throwing', () => {
  assert.throws(() => new Intl.RelativeTimeFormat(''), RangeError)
  assert.equal(typeof createRelativeFormat(undefined)(new Date(), Date.now()), 'string')
})

test('the title is the absolute date and time, with the minutes', () => {
  const date = new Date('2026-03-01T12:34:00Z')
  const title = absoluteText(date, 'en')
  assert.match(title, /2026/)
  assert.match(title, new RegExp(String(date.getMinutes()).padStart(2, '0')))
  assert.notEqual(absoluteText(date, 'ko'), title)
})
