// Test helper (not a test file itself): replaces a global (fetch, navigator, location…) for the
// current test; every replacement is undone after each test of the file that imports it.
import { afterEach } from 'node:test'

const saved = {}

/**
 * @param {string} name the global's name
 * @param {any} value what it is until the test ends
 */
export function fake(name, value) {
  if (!(name in saved)) saved[name] = Object.getOwnPropertyDescriptor(globalThis, name)
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true })
}

afterEach(() => {
  for (const [name, descriptor] of Object.entries(saved)) {
    if (descriptor) Object.defineProperty(globalThis, name, descriptor)
    else delete globalThis[name]
    delete saved[name]
  }
})
