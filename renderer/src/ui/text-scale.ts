/**
 * The user's text size, as the root font size against the default 16 px. The app's text
 * is in rem, so it grows by itself; geometry that virtualisers compute in pixels (row and
 * line heights, column widths) is multiplied by this so it grows with the text (WCAG 1.4.4)
 * instead of clipping it. Read when laying out, not per frame: it forces a style read.
 */
export function rootTextScale(): number {
  const root = Number.parseFloat(getComputedStyle(document.documentElement).fontSize);
  return Number.isFinite(root) && root > 0 ? root / 16 : 1;
}
