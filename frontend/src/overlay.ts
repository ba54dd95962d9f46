// The layer above every card for what floats: tooltips and menus. One <div id="overlay"> child of <body>, so nothing
// that floats is clipped by its card or hidden under a neighbour; each floating box is placed in window coordinates
// and flipped to stay inside the window.

import { h } from "./dom";

const layer = h("div", { id: "overlay" });

/** The overlay layer, put back into <body> when a page replaced the body's children. */
export function overlay(): HTMLElement {
  if (!layer.isConnected) document.body.append(layer);
  return layer;
}

const GAP = 14;
const MARGIN = 4;

/** Places `box` (a child of the overlay) beside the point (x, y) of the window: below right of it, or flipped left
 * and up where it would leave the window; a box larger than the window is held at its top left. */
export function placeNear(box: HTMLElement, x: number, y: number): void {
  box.style.left = "0px";
  box.style.top = "0px";
  const { width, height } = box.getBoundingClientRect();
  const [viewWidth, viewHeight] = [document.documentElement.clientWidth, document.documentElement.clientHeight];
  let left = x + GAP;
  if (left + width > viewWidth - MARGIN) left = x - GAP - width;
  let top = y + GAP;
  if (top + height > viewHeight - MARGIN) top = y - GAP - height;
  box.style.left = `${Math.round(Math.max(MARGIN, Math.min(left, viewWidth - MARGIN - width)))}px`;
  box.style.top = `${Math.round(Math.max(MARGIN, Math.min(top, viewHeight - MARGIN - height)))}px`;
}

/** The chart tooltip: one for the page (one cursor, one tooltip). */
export const tooltip = h("div", { class: "tooltip", role: "tooltip", hidden: true });

// What shows the tooltip now: only it hides it (another chart's cursor leaving does not).
let owner: unknown = null;

export function showTooltip(from: unknown, children: Node[], x: number, y: number): void {
  owner = from;
  if (!tooltip.isConnected) overlay().append(tooltip);
  tooltip.replaceChildren(...children);
  tooltip.hidden = false;
  placeNear(tooltip, x, y);
}

export function hideTooltip(from: unknown): void {
  if (from !== owner) return;
  owner = null;
  tooltip.hidden = true;
}
