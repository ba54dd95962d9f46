// A run's colour and dash, the same on every chart and in the run list. Runs get their place (slot) in the order first
// seen (sorted by name at start), and keep it while the page is open, unless it would draw a run like another one
// shown: no two of the shown runs share a colour while they are no more than the palette's 24, nor a colour and a
// dash past that. When a filter shows a subset whose colours clash, the run seen later takes the first colour no
// shown run has (and keeps it, as long as it clashes with none); dashes appear only while more than 24 runs are
// shown. A colour the user picks is kept in the browser. The palette's 24 colours are mid-lightness (a WCAG contrast
// of at least 2.6 on both the light and the dark theme's background) and far apart: their smallest pairwise CIEDE2000
// difference is 16.2 (test/colors.test.ts measures it). Blue and orange come first, then each colour is the farthest
// from those before it, so the first 8 handed out are at least 26 apart.

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

/** Each run's place: its colour is PALETTE[slot % 24], its dash (while more than 24 runs are shown) DASHES[slot / 24]. */
const slots = new Map<string, number>();
/** When each run got its slot (a count): of two shown runs with the same look, the one that had it first keeps it. */
const given = new Map<string, number>();
let gifts = 0;
/** The runs shown, as last told (showRuns). */
let shown: readonly string[] = [];
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
  if (slot === undefined) give(run, (slot = slots.size));
  return slot;
}

function give(run: string, slot: number): void {
  slots.set(run, slot);
  given.set(run, gifts++);
}

/** Gives the runs not seen yet their colours, in this order. */
export function assign(runs: readonly string[]): void {
  for (const run of runs) slotOf(run);
}

/** The runs now shown: those whose slots clash with another shown run's (the later seen of two) get new ones, the
 * first free: no two draw alike while the palette and dashes last. Of two that clash, the one that had its slot first
 * keeps it. */
export function showRuns(runs: readonly string[]): void {
  if (runs.length === shown.length && runs.every((run, index) => run === shown[index])) return;
  shown = runs;
  assign(runs);
  // What must differ among the shown runs: the colour while the palette suffices, else the colour and the dash.
  const looks = runs.length <= PALETTE.length ? PALETTE.length : PALETTE.length * DASHES.length;
  const taken = new Set<number>();
  const clashing: string[] = [];
  for (const run of [...runs].sort((a, b) => given.get(a)! - given.get(b)!)) {
    const look = slots.get(run)! % looks;
    if (taken.has(look)) clashing.push(run);
    else taken.add(look);
  }
  let free = 0;
  for (const run of clashing) {
    while (taken.has(free)) free++;
    if (free >= looks) break; // more runs than looks: some must share
    taken.add(free);
    give(run, free);
  }
}

export function colorOf(run: string): string {
  const chosen = picked[run];
  if (chosen && /^#[0-9a-f]{6}$/i.test(chosen)) return chosen;
  return PALETTE[slotOf(run) % PALETTE.length]!;
}

/** The run's line dash: solid while no more than 24 runs are shown (their colours differ), else one pattern per pass
 * through the palette. */
export function dashOf(run: string): readonly number[] {
  if (shown.length <= PALETTE.length) return DASHES[0]!;
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
