// A run keeps its colour while the page is open, on every chart and in the run list: colours are handed out in the
// order runs are first seen (sorted by name at start), and a colour the user picks is kept in the browser. The
// palette's 24 colours are mid-lightness (a WCAG contrast of at least 2.6 on both the light and the dark theme's
// background) and far apart: their smallest pairwise CIEDE2000 difference is 16.2 (test/colors.test.ts measures
// it). Blue and orange come first, then each colour is the farthest from those before it, so the first 8 handed out
// are at least 26 apart. The 25th run on takes the colours again with a dash pattern: no two of the first 96 runs
// are drawn alike.

import { hexToLab, labToHex } from "./color_space";

export const PALETTE = [
  "#1177cc",
  "#ff7700",
  "#446600",
  "#ff33ff",
  "#bb0044",
  "#55aaaa",
  "#6611ff",
  "#88aa00",
  "#775500",
  "#dd8888",
  "#aa3300",
  "#009955",
  "#bb9966",
  "#226655",
  "#993388",
  "#ff1133",
  "#8899ff",
  "#ff1188",
  "#00aaee",
  "#555599",
  "#cc88bb",
  "#117788",
  "#9966dd",
  "#996655",
];
/** Line dash patterns (canvas `setLineDash` lengths in CSS pixels) for each pass through the palette: solid first. */
export const DASHES: readonly (readonly number[])[] = [[], [8, 4], [2, 3], [10, 3, 2, 3]];
const STORAGE_KEY = "trainboard.colors";

/** Each run's place in the order of first sight: its colour is PALETTE[slot % 24], its dash DASHES[slot / 24]. */
const slots = new Map<string, number>();
const groupSlots = new Map<string, number>();
const picked: Record<string, string> = loadPicked();

function loadPicked(): Record<string, string> {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}") as unknown;
    return stored && typeof stored === "object" ? (stored as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function slotOf(run: string): number {
  let slot = slots.get(run);
  if (slot === undefined) slots.set(run, (slot = slots.size));
  return slot;
}

/** Gives the runs not seen yet their colours, in this order. */
export function assign(runs: readonly string[]): void {
  for (const run of runs) slotOf(run);
}

export function colorOf(run: string): string {
  const chosen = picked[run];
  if (chosen && /^#[0-9a-f]{6}$/i.test(chosen)) return chosen;
  return PALETTE[slotOf(run) % PALETTE.length]!;
}

/** The run's line dash: empty (solid) for the first 24 runs seen, then one pattern per pass through the palette. */
export function dashOf(run: string): readonly number[] {
  return DASHES[Math.floor(slotOf(run) / PALETTE.length) % DASHES.length]!;
}

export function pick(run: string, color: string): void {
  picked[run] = color;
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(picked));
  } catch {
    // Storage may be full or disabled: the colour then lasts until the page reloads.
  }
}

/** A group's hue: handed out in the order groups are first seen, as runs' colours are. */
export function colorOfGroup(name: string): string {
  let slot = groupSlots.get(name);
  if (slot === undefined) groupSlots.set(name, (slot = groupSlots.size));
  return PALETTE[slot % PALETTE.length]!;
}

const SHADE_SPREAD = 36; // CIELAB lightness from the darkest shade to the lightest
const SHADE_LIGHTNESS = [28, 80] as const;
const CHROMA_LOSS = 0.6;

/** `count` shades of `color` for the runs of its group: the same hue, lightness spread evenly around the colour's
 * own (darker first), so that a group's runs read as one family and still apart. */
export function shades(color: string, count: number): string[] {
  if (count <= 1) return count === 1 ? [color] : [];
  const [lightness, a, b] = hexToLab(color);
  const spread = Math.min(SHADE_SPREAD, 14 * (count - 1));
  const low = Math.min(SHADE_LIGHTNESS[1] - spread, Math.max(SHADE_LIGHTNESS[0], lightness - spread / 2));
  // Chroma shrinks away from the colour's own lightness: a saturated colour made much lighter or darker leaves sRGB,
  // and clipping it back would merge neighbouring shades.
  return Array.from({ length: count }, (_, index) => {
    const shade = low + (spread * index) / (count - 1);
    const chroma = 1 - (CHROMA_LOSS * Math.abs(shade - lightness)) / SHADE_SPREAD;
    return labToHex([shade, a * chroma, b * chroma]);
  });
}

/** `color` (#rrggbb) with an alpha. */
export function withAlpha(color: string, alpha: number): string {
  const value = parseInt(color.slice(1), 16);
  return `rgba(${(value >> 16) & 255},${(value >> 8) & 255},${value & 255},${alpha})`;
}
