// The DOM-free part of the binding (Client/src/attach.mjs): numeric options from data-ptr-*.
// Importing the module touches no DOM; attach() itself is covered by the browser suite.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { optionsFromDataset } from '../../Client/src/attach.mjs'

test('numeric data-ptr-* attributes become core options', () => {
  const dataset = {
    ptrThreshold: '72',
    ptrMax: '200',
    ptrDeadZone: '12',
    ptrHold: '48',
    ptrCooldown: '0',
    ptrTimeout: '10000',
  }
  assert.deepEqual(optionsFromDataset(dataset), {
    threshold: 72,
    max: 200,
    deadZone: 12,
    hold: 48,
    cooldown: 0,
    timeout: 10000,
  })
})

test('everything else is left out: texts, the endpoint, bad or negative numbers, timers', () => {
  const dataset = {
    pullToRefresh: '',
    ptrEndpoint: '/api/refresh',
    ptrVersion: '12',
    ptrLang: 'tr',
    ptrTextPull: 'Pull',
    ptrThreshold: 'wide',
    ptrMax: '-5',
    ptrHold: '',
    ptrTimers: '3',
  }
  assert.deepEqual(optionsFromDataset(dataset), {})
})
