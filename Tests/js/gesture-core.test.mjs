// Unit tests of the pure gesture state machine (Client/src/gesture-core.mjs, the source, not
// the bundle) with a fake clock. Run: node --test Tests/js/
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createCore } from '../../Client/src/gesture-core.mjs'

// A deterministic clock: timers only run when the test advances time.
function fakeTimers() {
  let now = 0, seq = 0, queue = []
  return {
    now: () => now,
    setTimeout: (f, ms) => { queue.push({ id: ++seq, at: now + ms, f }); return seq },
    clearTimeout: id => { queue = queue.filter(t => t.id !== id) },
    pending: () => queue.length,
    advance(ms) {
      const end = now + ms
      for (;;) {
        queue.sort((a, b) => a.at - b.at || a.id - b.id)
        const t = queue[0]
        if (!t || t.at > end) break
        queue.shift()
        now = t.at
        t.f()
      }
      now = end
    }
  }
}

const flush = () => new Promise(r => setImmediate(r))

// A core wired to a fake clock, a log of state transitions and a controllable onRefresh.
function setup(opts = {}) {
  const timers = fakeTimers(), states = [], calls = []
  let answer = () => Promise.resolve({ added: 1 })
  const core = createCore({
    timers,
    onChange: s => { if (states[states.length - 1] !== s) states.push(s) },
    onRefresh: ctx => { calls.push(ctx); return answer(ctx) },
    ...opts
  })
  return { core, timers, states, calls, answer: f => { answer = f } }
}

// Finger down at (x0, y0), then move to each y in ys; returns the preventDefault verdicts.
function drag(core, ys, { x0 = 100, y0 = 100, dx = 0, top = true } = {}) {
  core.start(x0, y0, top)
  return ys.map(y => core.move(x0 + dx, y0 + y, top))
}

test('defaults: threshold 64, max 160, dead zone 10, watchdog 15 s', () => {
  const { core } = setup()
  assert.equal(core.state, 'idle')
  assert.equal(core.o.threshold, 64)
  assert.equal(core.o.max, 160)
  assert.equal(core.o.deadZone, 10)
  assert.equal(core.o.timeout, 15000)
})

test('null/undefined options keep the defaults (declarative attributes may be missing)', () => {
  const { core } = setup({ threshold: undefined, max: null, cooldown: 250 })
  assert.equal(core.o.threshold, 64)
  assert.equal(core.o.max, 160)
  assert.equal(core.o.cooldown, 250)
})

test('dead zone: small movement claims the move but does not pull', () => {
  const { core, states } = setup()
  assert.deepEqual(drag(core, [3, 6, 9]), [true, true, true])
  assert.equal(core.state, 'idle')
  assert.equal(core.pull, 0)
  assert.deepEqual(states, [])
})

test('dead zone: upward or sideways jitter is not claimed', () => {
  const { core } = setup()
  core.start(100, 100, true)
  assert.equal(core.move(100, 97, true), false)
  assert.equal(core.move(104, 101, true), false)
  assert.equal(core.state, 'idle')
})

test('past the dead zone a downward drag pulls with resistance and a maximum', () => {
  const { core } = setup()
  drag(core, [20])
  assert.equal(core.state, 'pulling')
  const p20 = core.pull
  assert.ok(p20 > 0 && p20 < 10, `pull ${p20} should be less than the finger's 10 px past the dead zone`)
  core.move(100, 2100, true)
  assert.ok(core.pull < 160 && core.pull > 140, `pull ${core.pull} approaches max`)
})

test('pull grows monotonically with the finger', () => {
  const { core } = setup()
  core.start(0, 0, true)
  let last = -1
  for (let y = 12; y < 600; y += 7) {
    core.move(0, y, true)
    assert.ok(core.pull > last)
    last = core.pull
  }
})

test('direction lock: a mostly horizontal move is released to the browser for the whole gesture', () => {
  const { core } = setup()
  core.start(100, 100, true)
  assert.equal(core.move(130, 110, true), false)
  assert.equal(core.move(130, 400, true), false, 'once released, later vertical moves do not pull')
  assert.equal(core.state, 'idle')
})

test('direction lock: an upward move (scrolling the content) is never a pull', () => {
  const { core } = setup()
  core.start(100, 300, true)
  assert.equal(core.move(100, 250, true), false)
  assert.equal(core.move(100, 600, true), false)
  assert.equal(core.state, 'idle')
})

test('arms at the threshold of visual pull and fires exactly one refresh on release', async () => {
  const { core, calls, states, timers } = setup()
  core.start(0, 0, true)
  let y = 0
  while (core.state !== 'armed' && y < 1000) core.move(0, ++y, true)
  assert.equal(core.state, 'armed')
  assert.ok(core.pull >= 64 && core.pull < 65, `armed at ${core.pull}`)
  core.move(0, y + 50, true)
  core.end()
  assert.equal(core.state, 'refreshing')
  assert.equal(core.pull, core.o.hold)
  await flush()
  assert.equal(calls.length, 1)
  assert.equal(calls[0].source, 'gesture')
  assert.ok(calls[0].signal instanceof AbortSignal)
  assert.equal(core.state, 'done')
  timers.advance(5000)
  assert.equal(core.state, 'idle')
  assert.equal(core.pull, 0)
  assert.deepEqual(states, ['pulling', 'armed', 'refreshing', 'done', 'settling', 'idle'])
})

test('hysteresis: disarms only below 0.8 of the threshold', () => {
  const { core } = setup()
  core.start(0, 0, true)
  let y = 0
  while (core.state !== 'armed') core.move(0, ++y, true)
  // back off a little: still armed while the pull stays >= 0.8 * 64
  while (core.pull >= 0.8 * 64 + 1) { core.move(0, --y, true); assert.equal(core.state, 'armed') }
  while (core.pull >= 0.8 * 64) core.move(0, --y, true)
  assert.equal(core.state, 'pulling')
  // and re-arms only at the full threshold again
  while (core.pull < 63) { core.move(0, ++y, true); assert.equal(core.state, 'pulling') }
})

test('releasing below the threshold settles without a refresh', async () => {
  const { core, calls, states, timers } = setup()
  drag(core, [30, 60])
  assert.equal(core.state, 'pulling')
  core.end()
  assert.equal(core.state, 'settling')
  timers.advance(1000)
  await flush()
  assert.equal(core.state, 'idle')
  assert.equal(calls.length, 0)
  assert.deepEqual(states, ['pulling', 'settling', 'idle'])
})

test('no start when the scroller is not at the top', () => {
  const { core, calls } = setup()
  assert.deepEqual(drag(core, [50, 200, 400], { top: false }), [false, false, false])
  core.end()
  assert.equal(core.state, 'idle')
  assert.equal(calls.length, 0)
})

test('no mid-gesture arming: once the scroller moved, the gesture never pulls', () => {
  const { core, calls } = setup()
  core.start(0, 300, true)
  assert.equal(core.move(0, 250, false), false) // content scrolled down
  assert.equal(core.move(0, 700, true), false) // back at the top, far down
  core.end()
  assert.equal(core.state, 'idle')
  assert.equal(calls.length, 0)
})

test('a pull abandoned because the scroller moved settles', () => {
  const { core, timers } = setup()
  drag(core, [30, 60])
  assert.equal(core.move(0, 200, false), false)
  assert.equal(core.state, 'settling')
  timers.advance(1000)
  assert.equal(core.state, 'idle')
})

test('cancel (touchcancel / visibilitychange / pagehide) resets an armed pull without refreshing', async () => {
  const { core, calls, timers } = setup()
  drag(core, [300])
  assert.equal(core.state, 'armed')
  core.cancel()
  assert.equal(core.state, 'settling')
  assert.equal(core.pull, 0)
  core.end() // the touchend that may still arrive
  timers.advance(1000)
  await flush()
  assert.equal(core.state, 'idle')
  assert.equal(calls.length, 0)
  assert.equal(core.move(0, 500, true), false, 'the cancelled gesture is not tracked any more')
})

test('cancel while idle or refreshing changes nothing', async () => {
  const { core, answer } = setup()
  core.cancel()
  assert.equal(core.state, 'idle')
  answer(() => new Promise(() => {}))
  core.refresh('api')
  core.cancel()
  assert.equal(core.state, 'refreshing')
})

test('one refresh in flight: a second pull or refresh() during a refresh does nothing', async () => {
  const { core, calls, answer } = setup()
  let finish
  answer(() => new Promise(r => { finish = r }))
  const first = core.refresh('button')
  await flush()
  assert.equal(core.state, 'refreshing')
  assert.equal(await core.refresh('api'), false)
  assert.deepEqual(drag(core, [300]), [false])
  core.end()
  assert.equal(calls.length, 1)
  finish({ added: 2 })
  assert.equal(await first, true)
  assert.equal(core.state, 'done')
})

test('cooldown: a refresh right after a success is refused, later one runs', async () => {
  const { core, calls, timers } = setup({ cooldown: 3000 })
  assert.equal(await core.refresh('api'), true)
  timers.advance(2000) // done -> settling -> idle, still cooling down
  assert.equal(core.state, 'idle')
  assert.equal(await core.refresh('api'), false)
  // a pull in the cooldown never arms, so releasing it fires nothing
  drag(core, [400])
  assert.equal(core.state, 'pulling')
  core.end()
  await flush()
  assert.equal(calls.length, 1)
  timers.advance(1001)
  assert.equal(await core.refresh('api'), true)
  assert.equal(calls.length, 2)
})

test('watchdog: a refresh that never answers ends in error after the timeout and aborts', async () => {
  const { core, timers, answer, calls } = setup({ timeout: 15000 })
  answer(() => new Promise(() => {}))
  const p = core.refresh('api')
  await flush()
  timers.advance(14999)
  assert.equal(core.state, 'refreshing')
  timers.advance(1)
  assert.equal(core.state, 'error')
  assert.equal(await p, false)
  assert.equal(calls[0].signal.aborted, true)
})

test('watchdog: a late answer after the timeout is ignored', async () => {
  const { core, timers, answer } = setup({ timeout: 100 })
  let finish
  answer(() => new Promise(r => { finish = r }))
  core.refresh('api')
  await flush()
  timers.advance(100)
  assert.equal(core.state, 'error')
  finish({ added: 5 })
  await flush()
  assert.equal(core.state, 'error')
})

test('error: stays until the user acts; Retry refreshes again; info reaches onChange', async () => {
  const seen = []
  const { core, answer, timers } = setup({ onChange: (s, p, i) => seen.push([s, i]) })
  answer(() => Promise.reject({ code: 502 }))
  assert.equal(await core.refresh('gesture'), false)
  assert.equal(core.state, 'error')
  assert.deepEqual(seen.at(-1), ['error', { code: 502 }])
  timers.advance(60000)
  assert.equal(core.state, 'error', 'the error (with its Retry) does not vanish on its own')
  answer(() => Promise.resolve({ added: 0 }))
  assert.equal(await core.refresh('retry'), true)
  assert.equal(core.state, 'done')
  assert.deepEqual(seen.at(-1), ['done', { added: 0 }])
})

test('error with retryAfter (429/503): refreshes are refused until it passes', async () => {
  const { core, answer, timers, calls } = setup()
  answer(() => Promise.reject({ code: 'busy', retryAfter: 5 }))
  await core.refresh('api')
  assert.equal(core.state, 'error')
  timers.advance(4000)
  assert.equal(await core.refresh('retry'), false)
  timers.advance(1000)
  answer(() => Promise.resolve({ added: 1 }))
  assert.equal(await core.refresh('retry'), true)
  assert.equal(calls.length, 2)
})

test('a pull can start from the error state and re-fires', async () => {
  const { core, answer, calls } = setup()
  answer(() => Promise.reject(new Error('boom')))
  await core.refresh('api')
  assert.equal(core.state, 'error')
  answer(() => Promise.resolve({ added: 1 }))
  drag(core, [400])
  assert.equal(core.state, 'armed')
  core.end()
  await flush()
  assert.equal(calls.length, 2)
  assert.equal(core.state, 'done')
})

test('no new pull while done/settling', async () => {
  const { core, timers } = setup()
  await core.refresh('api')
  assert.equal(core.state, 'done')
  assert.deepEqual(drag(core, [400]), [false])
  timers.advance(950)
  assert.equal(core.state, 'settling')
  assert.deepEqual(drag(core, [400]), [false])
})

test('destroy stops timers and ignores a pending answer', async () => {
  const { core, timers, answer, states } = setup()
  let finish
  answer(() => new Promise(r => { finish = r }))
  core.refresh('api')
  await flush()
  const before = states.length
  core.destroy()
  finish({ added: 1 })
  await flush()
  timers.advance(60000) // the watchdog fires into nothing
  assert.equal(states.length, before, 'no state change after destroy')
  assert.equal(core.pull, 0)
})

test('onRefresh that throws synchronously becomes an error state', async () => {
  const { core } = setup({ onRefresh: () => { throw new Error('sync') } })
  assert.equal(await core.refresh('api'), false)
  assert.equal(core.state, 'error')
})
