/**
 * Paints the pull: the root's children (the indicator above the content included, the "new
 * items" pill excepted) move down by the pull distance with `transform: translateY()`, at most
 * once per animation frame.
 *
 * Why transforms in requestAnimationFrame: touchmove arrives more often than the screen refreshes
 * on many phones, and a transform needs no layout; only the latest distance of a frame is
 * painted. The arrow, the spinner and the transitions are CSS driven by `data-ptr-state`
 * (pull-to-refresh.css): the script never animates anything itself.
 * @module indicator
 */

/**
 * @param {HTMLElement} root the scroll root
 * @param {HTMLElement | null} pill the "new items" pill, which stays where it is
 * @returns {(pull: number) => void} shows `pull` px at the next frame (0: everything back)
 */
export function createIndicator(root, pill) {
  let frame = 0
  let distance = 0

  function paint() {
    frame = 0
    const transform = distance ? `translateY(${distance}px)` : ''
    for (const child of root.children) {
      if (child !== pill) child.style.transform = transform
    }
  }

  return pull => {
    distance = pull
    frame ||= requestAnimationFrame(paint)
  }
}
