// Feed positions (Client/src/feed-position.mjs): what a page sends as `since`, and how two
// positions compare across epochs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isAfter, pagePosition, sinceParam } from '../../Client/src/feed-position.mjs'

test('a page with an epoch sends <epoch>-<version>; without one, the bare version', () => {
  assert.equal(sinceParam(pagePosition({ ptrEpoch: 'mh9a00000a', ptrVersion: '12' })), 'mh9a00000a-12')
  assert.equal(sinceParam(pagePosition({ ptrVersion: '12' })), '12')
  assert.equal(sinceParam(pagePosition({})), '0')
})

test('within an epoch versions compare; a later epoch is after whatever its version', () => {
  const old = epoch => ({ epoch, version: 40 })
  assert.equal(isAfter({ epoch: 'mh9a00000a', version: 41 }, old('mh9a00000a')), true)
  assert.equal(isAfter({ epoch: 'mh9a00000a', version: 40 }, old('mh9a00000a')), false)
  assert.equal(isAfter({ epoch: 'mh9b00000b', version: 1 }, old('mh9a00000a')), true)
  assert.equal(isAfter({ epoch: 'mh9a00000a', version: 99 }, old('mh9b00000b')), false)
  // Tags of different lengths compare as numbers, not as strings.
  assert.equal(isAfter({ epoch: '10', version: 1 }, old('z')), true)
  // Without an epoch on either side, versions alone.
  assert.equal(isAfter({ epoch: '', version: 41 }, old('mh9a00000a')), true)
})
