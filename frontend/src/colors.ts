// A run keeps its colour while runs are selected, filtered or added: colours are handed out in the order runs are
// first seen (sorted by name at start), and a colour the user picks is kept in the browser.

export const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#bcbd22",
  "#7f7f7f",
  "#3366cc",
  "#dc3912",
  "#109618",
  "#990099",
  "#0099c6",
  "#dd4477",
  "#66aa00",
  "#b82e2e",
  "#316395",
  "#994499",
];
const STORAGE_KEY = "trainboard.colors";

const assigned = new Map<string, string>();
const picked: Record<string, string> = loadPicked();

function loadPicked(): Record<string, string> {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}") as unknown;
    return stored && typeof stored === "object" ? (stored as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function assign(runs: readonly string[]): void {
  for (const run of runs) if (!assigned.has(run)) assigned.set(run, PALETTE[assigned.size % PALETTE.length]!);
}

export function colorOf(run: string): string {
  const chosen = picked[run];
  if (chosen && /^#[0-9a-f]{6}$/i.test(chosen)) return chosen;
  assign([run]);
  return assigned.get(run)!;
}

export function pick(run: string, color: string): void {
  picked[run] = color;
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(picked));
  } catch {
    // Storage may be full or disabled: the colour then lasts until the page reloads.
  }
}

/** `color` (#rrggbb) with an alpha. */
export function withAlpha(color: string, alpha: number): string {
  const value = parseInt(color.slice(1), 16);
  return `rgba(${(value >> 16) & 255},${(value >> 8) & 255},${value & 255},${alpha})`;
}
