/**
 * The page's entry point, built into Public/pull-to-refresh.js: attaches every
 * `[data-pull-to-refresh]` element when it loads, and exposes the API.
 *
 * ```js
 * import PullToRefresh from '/static/pull-to-refresh.js'   // also window.PullToRefresh
 * const ptr = PullToRefresh.attach(scroller, { onRefresh: async ({ signal }) => ({ added: 3 }) })
 * ```
 * @module pull-to-refresh
 */

import { attach } from './attach.mjs'

export { attach }

/** The public API: `attach(root, options)` → controller (see attach.mjs). */
export const PullToRefresh = { attach }
window.PullToRefresh = PullToRefresh
export { PullToRefresh as default }

// Declarative use: the markup opts in, no script of the page's own is needed.
for (const root of document.querySelectorAll('[data-pull-to-refresh]')) attach(root)
