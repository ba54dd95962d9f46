// An embedding's metadata as TensorBoard's projector uses it: every column of its TSV (or the labels TS-VIS serves,
// as one column), points coloured by a column (a palette and a legend for categories, a gradient for numbers), and a
// search (substring or regex) on a column whose matches are highlighted.

import "./dashboard_tools.css";
import { getJson, getText } from "./api";
import { formatCount, formatNumber, h } from "./dom";
import { regex } from "./regex";

export interface Metadata {
  columns: string[];
  /** One row of cells per point, in the points' order. */
  rows: string[][];
}

interface ProjectorInfo {
  embeddings?: { tensorName: string; metadataPath?: string }[];
}

/** Grey for what a search does not match, and for points whose value a numeric column lacks. */
// Points that did not match a search, or have no value to colour by: quiet against the theme's background.
const DIM: Record<string, [number, number, number]> = { light: [0.8, 0.81, 0.83], dark: [0.27, 0.29, 0.32] };
const dim = (): [number, number, number] => DIM[document.documentElement.dataset.theme ?? "light"] ?? DIM.light!;
/** The gradient's ends (TensorBoard's projector goes from a light to a dark blue). */
const LOW: [number, number, number] = [0.99, 0.85, 0.24];
const HIGH: [number, number, number] = [0.15, 0.2, 0.55];

/** The projector's metadata of the run's embedding `tag` at `step`, or the served labels as one column when it has
 * none (TS-VIS's own records) or it does not fit the points. */
export async function loadMetadata(
  run: string,
  tag: string,
  step: string,
  labels: (string | number)[],
): Promise<Metadata> {
  const fallback = { columns: ["label"], rows: labels.map((label) => [String(label)]) };
  try {
    // Only runs with a projector config have its info (asking for another's is refused, and logged by the browser).
    if (!(await getJson<string[]>("data/plugin/projector/runs")).includes(run)) return fallback;
    const embeddings = (await getJson<ProjectorInfo>("data/plugin/projector/info", { run })).embeddings ?? [];
    // PyTorch names the tensor "<tag>:<step, 5 digits>"; TensorFlow's configs name it as the tag.
    const name = (entry: { tensorName: string }) => entry.tensorName.replace(/:\d+$/, "");
    const found =
      embeddings.find((entry) => entry.tensorName === `${tag}:${step.padStart(5, "0")}`) ??
      embeddings.find((entry) => entry.tensorName === tag || name(entry) === tag);
    if (!found?.metadataPath) return fallback;
    const parsed = parseTsv(await getText("data/plugin/projector/metadata", { run, name: found.tensorName }));
    return parsed.rows.length === labels.length ? parsed : fallback;
  } catch {
    return fallback;
  }
}

/** TensorBoard's rule: a TSV of one column has no header; of more, its first line names the columns. */
export function parseTsv(text: string): Metadata {
  const lines = text.replace(/\r?\n$/, "").split(/\r?\n/);
  const cells = lines.map((line) => line.split("\t"));
  if ((cells[0]?.length ?? 0) <= 1) return { columns: ["label"], rows: cells.map((row) => [row[0] ?? ""]) };
  return { columns: cells[0]!, rows: cells.slice(1) };
}

function isNumeric(values: string[]): boolean {
  const present = values.filter((value) => value.trim() !== "");
  return present.length > 0 && present.every((value) => Number.isFinite(Number(value)));
}

function hsl(hue: number, saturation: number, lightness: number): [number, number, number] {
  const amount = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    return lightness - amount * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [channel(0), channel(8), channel(4)];
}

const css = ([r, g, b]: [number, number, number]) =>
  `rgb(${Math.round(r * 255)}, ${Math.round(g * 255)}, ${Math.round(b * 255)})`;

/** Colours (r, g, b in [0, 1] per point) by column `column`, and the legend that explains them; the points not in
 * `matches` (when given) are grey. */
export function colourBy(
  metadata: Metadata,
  column: number,
  matches: Set<number> | null,
): { colours: Float32Array; legend: HTMLElement } {
  const values = metadata.rows.map((row) => row[column] ?? "");
  const colours = new Float32Array(values.length * 3);
  let legend: HTMLElement;
  let colourOf: (index: number) => [number, number, number];
  if (isNumeric(values)) {
    const numbers = values.map((value) => (value.trim() === "" ? NaN : Number(value)));
    const finite = numbers.filter(Number.isFinite);
    const low = Math.min(...finite);
    const high = Math.max(...finite);
    const mix = (fraction: number) =>
      LOW.map((end, i) => end + (HIGH[i]! - end) * fraction) as [number, number, number];
    colourOf = (index) => {
      const value = numbers[index]!;
      return Number.isFinite(value) ? mix(high > low ? (value - low) / (high - low) : 0.5) : dim();
    };
    legend = h(
      "div",
      { class: "embedding-legend-numeric", "data-kind": "gradient" },
      h("div", {
        class: "embedding-gradient",
        style: `background: linear-gradient(to right, ${css(LOW)}, ${css(HIGH)})`,
      }),
      h(
        "div",
        { class: "embedding-gradient-ends" },
        h("span", {}, formatNumber(low)),
        h("span", {}, formatNumber(high)),
      ),
    );
  } else {
    const counts = new Map<string, number>();
    for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
    const hues = new Map([...counts.keys()].map((value, index) => [value, (index * 137.5) % 360]));
    colourOf = (index) => hsl(hues.get(values[index]!)!, 0.65, 0.45);
    legend = h(
      "ul",
      { class: "embedding-legend", "data-kind": "categories" },
      ...[...counts].map(([value, count]) =>
        h(
          "li",
          { "data-value": value },
          h("span", { class: "swatch", style: `background:${css(hsl(hues.get(value)!, 0.65, 0.45))}` }),
          value === "" ? "(empty)" : value,
          h("span", { class: "count" }, ` ${formatCount(count)}`),
        ),
      ),
    );
  }
  values.forEach((_, index) => colours.set(matches && !matches.has(index) ? dim() : colourOf(index), index * 3));
  return { colours, legend };
}

/** The points whose cell in `column` holds `query` (any case), or matches it as a regex; null for an empty query or
 * a pattern that does not compile. */
export function search(metadata: Metadata, column: number, query: string, asRegex: boolean): Set<number> | null {
  if (!query) return null;
  const needle = query.toLowerCase();
  const pattern = asRegex ? regex(query) : null;
  if (asRegex && !pattern) return null;
  const found = new Set<number>();
  metadata.rows.forEach((row, index) => {
    const cell = row[column] ?? "";
    if (pattern ? pattern.test(cell) : cell.toLowerCase().includes(needle)) found.add(index);
  });
  return found;
}
