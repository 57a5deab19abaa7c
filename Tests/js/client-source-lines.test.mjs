// Client/src stays readable in a side-by-side diff and a phone-width editor: no line of its
// scripts or stylesheets is wider than 100 columns (counted in characters, not UTF-8 bytes, so
// a "…" in a comment counts once).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'

const MAX_COLUMNS = 100
const source = new URL('../../Client/src/', import.meta.url)

/** Every line of `text` wider than `MAX_COLUMNS`, as `name:line (columns)`. */
function tooWide(name, text) {
  return text
    .split('\n')
    .map((line, index) => ({ line: index + 1, columns: [...line].length }))
    .filter(({ columns }) => columns > MAX_COLUMNS)
    .map(({ line, columns }) => `${name}:${line} (${columns} columns)`)
}

test('the check counts characters, and finds a line one column too wide', () => {
  assert.deepEqual(tooWide('x.mjs', `${'…'.repeat(MAX_COLUMNS)}\n${'a'.repeat(MAX_COLUMNS + 1)}`), [
    `x.mjs:2 (${MAX_COLUMNS + 1} columns)`,
  ])
})

test(`no line of Client/src is wider than ${MAX_COLUMNS} columns`, () => {
  const files = readdirSync(source).filter(name => /\.(mjs|js|css)$/.test(name))
  assert.ok(files.length > 10, `Client/src has its sources (${files})`)
  const wide = files.flatMap(name => tooWide(name, readFileSync(new URL(name, source), 'utf8')))
  assert.deepEqual(wide, [])
})
