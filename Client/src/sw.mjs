/**
 * The service worker, built into Public/sw.js and served at `/sw.js` (scope `/`,
 * `Cache-Control: no-cache`, so the browser checks for a new one on every visit).
 *
 * - Pages (navigations): network first. An answer within 3 s is shown and saved (unless it is
 *   `Cache-Control: no-store`: the owner's pages hold a session's token); without one
 *   (offline, or a network that hangs), the last good copy is shown, marked with
 *   `<meta name="ptr-saved-at">` so the page says "Offline: showing the list from <time>".
 * - Static files (`/static/`), the web app manifest and `/favicon.ico`: stale-while-revalidate,
 *   from the cache at once and refreshed in the background. The manifest and the icons are
 *   precached, so an installed app has its name and icons offline too; the manifest of a
 *   language (`?lang=ko`) never fetched before falls back to the precached one.
 * - Thumbnails (`/img/`): cache first, in a cache of their own that outlives deployments
 *   (a thumbnail's URL names its item, and the server makes it `immutable`), so the saved
 *   page shows its pictures offline. Bounded: past `MAX_THUMBNAILS` the oldest go.
 * - Everything else passes through untouched: the API (the refresh POST, the event stream, the
 *   items the pill loads), other methods, other origins. The Cache API cannot store a POST, and
 *   an event stream never ends.
 *
 * A new deployment takes over cleanly: the build puts a hash of the bundles into the cache's
 * name, so a changed bundle makes a byte-different worker, which the browser installs. It
 * precaches the new static files, skips waiting and claims the open pages at once (they keep
 * the scripts they already run; a page only ever mixes versions for the one load that found
 * the update), then deletes the caches of older versions.
 * @module sw
 */

/* global CACHE_VERSION */
/** The cache of this deployment; `CACHE_VERSION` is defined by the build (Makefile). */
const CACHE = 'pullrefresh-' + (typeof CACHE_VERSION === 'string' ? CACHE_VERSION : 'dev')
/** How long a page request may take before the saved copy is shown instead. */
const NETWORK_TIMEOUT_MS = 3000
/** Thumbnails keep across deployments: only the bound ends them. */
const THUMBNAIL_CACHE = 'pullrefresh-thumbnails'
/** About three pages of 30 items at one display density. */
const MAX_THUMBNAILS = 100
const STATIC_FILES = [
  '/static/app.css',
  '/static/pull-to-refresh.css',
  '/static/pull-to-refresh.js',
  '/static/feed.js',
]
/** The installed app's files: the manifest and every icon it or the page names. */
const APP_FILES = [
  '/manifest.webmanifest',
  '/favicon.ico',
  '/static/icons/icon-192.png',
  '/static/icons/icon-512.png',
  '/static/icons/icon-maskable-512.png',
  '/static/icons/apple-touch-icon.png',
  '/static/icons/favicon.svg',
  '/static/icons/favicon-32.png',
]
const MANIFEST = '/manifest.webmanifest'

self.addEventListener('install', event => {
  event.waitUntil(
    caches
      .open(CACHE)
      // `reload` skips the HTTP cache: the files of this deployment, not of the previous one.
      // The page too, so the visit that installed the worker already leaves a copy to show.
      .then(cache => {
        const files = ['/', ...STATIC_FILES, ...APP_FILES]
        return cache.addAll(files.map(url => new Request(url, { cache: 'reload' })))
      })
      .then(() => self.skipWaiting()),
  )
})

self.addEventListener('activate', event => {
  event.waitUntil(
    caches
      .keys()
      .then(names =>
        Promise.all(
          names
            .filter(
              name => name.startsWith('pullrefresh-') && name !== CACHE && name !== THUMBNAIL_CACHE,
            )
            .map(name => caches.delete(name)),
        ),
      )
      .then(() => self.clients.claim()),
  )
})

self.addEventListener('fetch', event => {
  const request = event.request
  const url = new URL(request.url)
  if (request.method !== 'GET' || url.origin !== location.origin) return
  if (request.mode === 'navigate' && !url.pathname.startsWith('/api/')) {
    event.respondWith(networkFirst(event))
  } else if (
    url.pathname.startsWith('/static/') ||
    url.pathname === MANIFEST ||
    url.pathname === '/favicon.ico'
  ) {
    event.respondWith(staleWhileRevalidate(event))
  } else if (url.pathname.startsWith('/img/')) {
    event.respondWith(cacheFirst(event))
  }
})

/**
 * A thumbnail from the cache, or from the network (then kept, the oldest dropped past the bound).
 * @param {FetchEvent} event
 * @returns {Promise<Response>}
 */
async function cacheFirst(event) {
  const cache = await caches.open(THUMBNAIL_CACHE)
  const cached = await cache.match(event.request)
  if (cached) return cached
  const response = await fetch(event.request)
  if (response.ok) {
    event.waitUntil(cache.put(event.request, response.clone()).then(() => trim(cache)))
  }
  return response
}

/**
 * Drops the oldest entries (`keys()` lists them in insertion order) past `MAX_THUMBNAILS`.
 * @param {Cache} cache
 */
async function trim(cache) {
  const keys = await cache.keys()
  const excess = keys.slice(0, Math.max(0, keys.length - MAX_THUMBNAILS))
  await Promise.all(excess.map(key => cache.delete(key)))
}

/**
 * The page from the network within the timeout (saved for later), else the saved copy.
 * @param {FetchEvent} event
 * @returns {Promise<Response>}
 */
async function networkFirst(event) {
  const cache = await caches.open(CACHE)
  const fromNetwork = fetch(event.request).then(async response => {
    // Only complete, successful pages are worth showing offline later; never one marked
    // `no-store` (the Feeds page and the sign-in form hold a per-session token).
    const noStore = /no-store/i.test(response.headers.get('Cache-Control') || '')
    if (response.ok && response.type === 'basic' && !noStore) {
      await cache.put(event.request, response.clone())
    }
    return response
  })
  // A late answer still refreshes the saved copy.
  event.waitUntil(fromNetwork.catch(() => {}))
  const timedOut = new Promise(resolve => setTimeout(resolve, NETWORK_TIMEOUT_MS, null))
  const answer = await Promise.race([fromNetwork.catch(() => null), timedOut])
  if (answer) return answer
  const saved =
    (await cache.match(event.request)) || (await cache.match('/', { ignoreSearch: true }))
  return saved ? markSaved(saved) : fromNetwork
}

/**
 * The saved page with the time it was fetched in a `<meta>` the page script reads.
 * @param {Response} saved
 */
async function markSaved(saved) {
  const savedAt = new Date(saved.headers.get('Date') || Date.now()).toISOString()
  const html = await saved.text()
  const headers = new Headers(saved.headers)
  // The body is decoded text now.
  headers.delete('Content-Encoding')
  headers.delete('Content-Length')
  const marked = html.replace('<head>', `<head>\n<meta name="ptr-saved-at" content="${savedAt}">`)
  return new Response(marked, { status: 200, headers })
}

/**
 * The cached file at once (refreshed in the background), or the network's on a miss.
 * @param {FetchEvent} event
 */
async function staleWhileRevalidate(event) {
  const cache = await caches.open(CACHE)
  const cached = await cache.match(event.request)
  const refreshed = fetch(event.request).then(async response => {
    if (response.ok) await cache.put(event.request, response.clone())
    return response
  })
  if (!cached) {
    // Offline, a manifest in a language not fetched yet is still the app's manifest.
    const fallback = () => cache.match(MANIFEST).then(saved => saved || refreshed)
    return new URL(event.request.url).pathname === MANIFEST ? refreshed.catch(fallback) : refreshed
  }
  event.waitUntil(refreshed.catch(() => {}))
  return cached
}
