/**
 * Relative times: every `<time data-ptr-time datetime="…">` shows "5 minutes ago" (or
 * "5 dakika önce", "5분 전", …) in the page's language, with the absolute local time in its
 * `title`; updated once a minute. The server renders the absolute UTC time as the text, which is
 * what a reader without JavaScript sees.
 *
 * The choice of unit and the formatting are pure (tested in node); `startRelativeTimes` is the
 * part that touches the DOM.
 * @module relative-time
 */

const MINUTE = 60
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const WEEK = 7 * DAY
/** A month is 4.35 weeks (~30.4 days), a year twelve of them. */
const MONTH = 4.35 * WEEK

/** The units from the largest down, each with its length in seconds. */
const UNITS = {
  year: 12 * MONTH,
  month: MONTH,
  week: WEEK,
  day: DAY,
  hour: HOUR,
  minute: MINUTE,
}

/** How often the texts are brought up to date. */
const UPDATE_MS = MINUTE * 1000

/**
 * The value and unit to say for a time `seconds` away from now (negative: in the past), as
 * arguments of `Intl.RelativeTimeFormat#format`: the largest unit that fits, truncated toward
 * zero, so "5 minutes ago" means at least five minutes. Under a minute (and for NaN, not a time)
 * it is `0 second`, "now" with `numeric: 'auto'`: the text changes once a minute, so counting
 * seconds would be wrong.
 * @param {number} seconds
 * @returns {[number, Intl.RelativeTimeFormatUnit]}
 */
export function relativeParts(seconds) {
  for (const unit in UNITS) {
    if (Math.abs(seconds) >= UNITS[unit]) return [Math.trunc(seconds / UNITS[unit]), unit]
  }
  return [0, 'second']
}

/**
 * A formatter for one language: `(date, now)` → "yesterday", "3 hours ago", "5분 전"…
 * @param {string} [lang] a BCP 47 tag; the browser's own language when undefined
 * @returns {(date: Date, now: number) => string}
 */
export function createRelativeFormat(lang) {
  const relative = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' })
  return (date, now) => relative.format(...relativeParts((date - now) / 1000))
}

/**
 * The absolute date and time in the reader's time zone, for the `title`.
 * @param {Date} date
 * @param {string} [lang]
 */
export function absoluteText(date, lang) {
  return date.toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * Shows the times under `root` relative to now, and keeps them so once a minute for the life of
 * the page.
 * @param {ParentNode} root
 * @param {string | undefined} lang
 * @returns {() => void} renders them now (after items were added or a `datetime` changed)
 */
export function startRelativeTimes(root, lang) {
  let format
  try {
    format = createRelativeFormat(lang)
  } catch {
    // No Intl.RelativeTimeFormat (an old browser) or a tag it refuses: keep the server's text.
    return () => {}
  }

  function render() {
    const now = Date.now()
    // All reads first, then all writes, in one batch: a read between writes would make the
    // browser lay the page out again for every item.
    const changes = []
    for (const time of root.querySelectorAll('time[data-ptr-time]')) {
      const date = new Date(time.dateTime)
      const text = format(date, now)
      if (!isNaN(date) && time.textContent !== text) changes.push([time, text, date])
    }
    // The title (the absolute time) is written with the first relative text and stays right.
    for (const [time, text, date] of changes) {
      time.textContent = text
      time.title = absoluteText(date, lang)
    }
  }

  render()
  setInterval(render, UPDATE_MS)
  return render
}
