// The layer above every card for what floats: tooltips and menus. One <div id="overlay"> child of <body>, so nothing
// that floats is clipped by its card or hidden under a neighbour; each floating box is placed in window coordinates
// and flipped to stay inside the window.

import type uPlot from "uplot";
import { h } from "./dom";

const layer = h("div", { id: "overlay" });

/** The overlay layer, put back into <body> when a page replaced the body's children. */
export function overlay(): HTMLElement {
  if (!layer.isConnected) document.body.append(layer);
  return layer;
}

const GAP = 14;
const MARGIN = 4;

/** Places `box` (a child of the overlay) of `size` beside the point (x, y) of the window: below right of it, or
 * flipped left and up where it would leave the window; a box larger than the window is held at its top left. */
export function placeNear(box: HTMLElement, x: number, y: number, size = measure(box)): void {
  const { width, height } = size;
  const [viewWidth, viewHeight] = windowSize();
  let left = x + GAP;
  if (left + width > viewWidth - MARGIN) left = x - GAP - width;
  let top = y + GAP;
  if (top + height > viewHeight - MARGIN) top = y - GAP - height;
  box.style.left = `${Math.round(Math.max(MARGIN, Math.min(left, viewWidth - MARGIN - width)))}px`;
  box.style.top = `${Math.round(Math.max(MARGIN, Math.min(top, viewHeight - MARGIN - height)))}px`;
}

// The window's size without its scrollbars, read once per resize: read on every move, it would lay the page out.
let shownWindow: [number, number] | null = null;
window.addEventListener("resize", () => (shownWindow = null));

function windowSize(): [number, number] {
  shownWindow ??= [document.documentElement.clientWidth, document.documentElement.clientHeight];
  return shownWindow;
}

function measure(box: HTMLElement): { width: number; height: number } {
  box.style.left = "0px";
  box.style.top = "0px";
  const { width, height } = box.getBoundingClientRect();
  return { width, height };
}

/** The chart tooltip: one for the page (one cursor, one tooltip). */
export const tooltip = h("div", { class: "tooltip", role: "tooltip", hidden: true });

/** A place of the pointer in the window (a mouse event is one). */
export interface PointerAt {
  clientX: number;
  clientY: number;
}

/** What shows the tooltip: the pointer moving over the tooltip is its pointer still (the tooltip is hit-testable: it
 * is what is on top there, but the chart under it keeps following the pointer), and leaving the tooltip elsewhere than
 * to its chart leaves the chart. */
export interface TooltipOwner {
  pointerMoved(at: PointerAt): void;
  pointerLeft(event: MouseEvent): void;
}

/** A chart's answer to the pointer moving over its tooltip (`pointerMoved`): inside the plot, the plot's cursor
 * follows it; outside, the chart is left. */
export function followPointer(plot: uPlot | null, at: PointerAt, leave: () => void): void {
  if (!plot) return;
  const box = plot.over.getBoundingClientRect();
  const [left, top] = [at.clientX - box.left, at.clientY - box.top];
  if (left < 0 || top < 0 || left > box.width || top > box.height) leave();
  else plot.setCursor({ left, top });
}

/** A chart's answer to the pointer leaving its tooltip (`pointerLeft`): unless back onto the chart, it is left. */
export function leavePointer(plot: uPlot | null, chart: HTMLElement, event: MouseEvent, leave: () => void): void {
  if (event.relatedTarget instanceof Node && chart.contains(event.relatedTarget)) return;
  plot?.setCursor({ left: -10, top: -10 });
  leave();
}

// What shows the tooltip now (only it hides it: another chart's cursor leaving does not), what it shows and its size.
let owner: TooltipOwner | null = null;
tooltip.addEventListener("mousemove", (event) => owner?.pointerMoved(event));
tooltip.addEventListener("mouseleave", (event) => owner?.pointerLeft(event));

/** Whether the pointer went from a chart onto the tooltip (the chart has not been left). */
export function intoTooltip(event: MouseEvent): boolean {
  return event.relatedTarget instanceof Node && tooltip.contains(event.relatedTarget);
}
let shownKey = "";
let shownShape = "";
let shownSize: { width: number; height: number } | null = null;

/** A tooltip's content: its nodes, and what its size depends on (`shape`): the same nodes filled again with a content
 * of the same shape (as many rows, as wide) keep their size, which is then not measured again. */
export interface TooltipContent {
  nodes: Node[];
  shape: string;
}

/** Shows the tooltip beside (x, y). Its content is built again only when `key` (what it shows) changed: a cursor
 * moving along the same points only moves it, with no layout of its table. */
export function showTooltip(from: TooltipOwner, key: string, build: () => TooltipContent, x: number, y: number): void {
  if (!tooltip.isConnected) overlay().append(tooltip);
  if (from !== owner || key !== shownKey || tooltip.hidden || !shownSize) {
    const { nodes, shape } = build();
    // The same nodes filled again (the charts' table) stay in place: put in again, they would be styled anew.
    const same = nodes.length === tooltip.childNodes.length && nodes.every((node, i) => tooltip.childNodes[i] === node);
    if (!same) tooltip.replaceChildren(...nodes);
    // Measuring lays the tooltip out at once: only when its size may have changed.
    if (!same || tooltip.hidden || shape !== shownShape || !shownSize) {
      tooltip.hidden = false;
      shownSize = measure(tooltip);
    }
    shownShape = shape;
  }
  owner = from;
  shownKey = key;
  placeNear(tooltip, x, y, shownSize);
}

export function hideTooltip(from: unknown): void {
  if (from !== owner) return;
  owner = null;
  tooltip.hidden = true;
}

/** A button that opens `items` (buttons) as a menu in the overlay, under it (flipped to stay in the window); a click
 * on an item, outside the menu, or Escape closes it. */
export function menuButton(label: string, attributes: Record<string, string>, items: HTMLElement[]): HTMLElement {
  const button = h(
    "button",
    { type: "button", "aria-haspopup": "menu", "aria-expanded": "false", ...attributes },
    label,
  );
  const menu = h("div", { class: "menu", role: "menu" }, ...items);
  for (const item of items) item.setAttribute("role", "menuitem");
  const close = () => {
    menu.remove();
    button.setAttribute("aria-expanded", "false");
    document.removeEventListener("pointerdown", outside, true);
    document.removeEventListener("keydown", escape, true);
  };
  const outside = (event: Event) => {
    if (!menu.contains(event.target as Node) && !button.contains(event.target as Node)) close();
  };
  const escape = (event: KeyboardEvent) => {
    if (event.key !== "Escape") return;
    event.stopPropagation(); // Escape closes the menu, not the full-screen card under it
    close();
    button.focus();
  };
  menu.addEventListener("click", (event) => {
    if ((event.target as HTMLElement).closest("button")) close();
  });
  button.addEventListener("click", () => {
    if (menu.isConnected) return close();
    overlay().append(menu);
    button.setAttribute("aria-expanded", "true");
    const box = button.getBoundingClientRect();
    placeNear(menu, box.left - GAP, box.bottom - GAP);
    document.addEventListener("pointerdown", outside, true);
    document.addEventListener("keydown", escape, true);
    menu.querySelector<HTMLElement>("button:not([hidden])")?.focus();
  });
  return button;
}
