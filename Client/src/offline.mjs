/**
 * Offline support, page side: registers the service worker (`/sw.js`, built from sw.mjs), and
 * when the worker served its saved copy of the page (the network failed or took over 3 s),
 * shows "Offline: showing the list saved <time>" (a relative time, like "Last updated" above
 * it: one format on each line), and clears it once the network is back.
 *
 * The worker marks a saved copy with `<meta name="ptr-saved-at" content="<ISO time>">`: a
 * page cannot read the headers of its own navigation, and the mark is in the document itself.
 * Service workers exist only in secure contexts (HTTPS, or http://localhost).
 * @module offline
 */

/**
 * Registers the worker; a browser without service workers (or an insecure origin) keeps
 * working exactly as before.
 * @param {string} [url]
 */
export function registerServiceWorker(url = '/sw.js') {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return
  navigator.serviceWorker.register(url, { scope: '/' }).catch(() => {
    // Not registering only means no offline copy; nothing on the page depends on it.
  })
}

/**
 * Shows the banner when this document is the worker's saved copy.
 * @param {Document} doc
 * @param {string} [lang] the page's language, for the time
 * @returns {boolean} whether the page is the saved copy
 */
export function showOfflineBanner(doc, lang) {
  const savedAt = doc.querySelector('meta[name="ptr-saved-at"]')?.getAttribute('content')
  const banner = doc.querySelector('[data-ptr-offline]')
  if (!savedAt || !banner) return false
  const time = doc.createElement('time')
  time.dateTime = savedAt
  // Shown as a relative time ("5 minutes ago") by relative-time.mjs, like every
  // `time[data-ptr-time]`, with this absolute text as the fallback and in its title.
  time.dataset.ptrTime = ''
  time.textContent = new Date(savedAt).toLocaleString(lang, {
    dateStyle: 'medium',
    timeStyle: 'short',
  })
  // The localized sentence has a `{time}` slot; the time goes in as an element, not as HTML.
  const [before, after = ''] = (banner.dataset.ptrOfflineText || '{time}').split('{time}')
  banner.replaceChildren(before, time, after)
  banner.hidden = false
  return true
}

/**
 * Hides the banner when the network is back: at the browser's `online` event, or when the
 * returned function is called (feed.mjs calls it when a refresh reached the server, which
 * moves "Last updated"; a network that hung sends no `online`).
 * @param {Document} doc
 * @param {Window} win
 * @returns {() => void} hides the banner
 */
export function clearOfflineBannerWhenOnline(doc, win) {
  const banner = doc.querySelector('[data-ptr-offline]')
  const clear = () => {
    if (banner) banner.hidden = true
  }
  win.addEventListener('online', clear, { once: true })
  return clear
}
