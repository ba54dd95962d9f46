// The dashboards of one card per (run, tag): images and audio (a step slider, every sample of the step), text
// (rendered markdown, rebuilt from an allow-list of elements), histograms (offset or overlaid) and distributions.
// PR curves, a chart per tag of every run, are in pr_curves.ts.

import uPlot from "uplot";
import { getJson } from "./api";
import { themedAxis } from "./chart_theme";
import { CardGrid, type Fill } from "./cards";
import type { Dashboard } from "./dashboard";
import { colorOf, withAlpha } from "./colors";
import { formatNumber, h } from "./dom";
import { histogramChart, type HistogramPoint } from "./histogram_chart";
import { enlarge, imageTools } from "./image_view";
import { regexProblem } from "./regex";
import { state, update, type State } from "./state";

export type Listing = Record<string, Record<string, { samples?: number }>> | Record<string, string[]>;

// Declared in dashboard.ts; still exported here for the dashboards that import it from this module.
export type { Dashboard } from "./dashboard";

function dashboard(id: string, title: string, plugin: string, fill: Fill, tools: HTMLElement[] = []): Dashboard {
  const grid = new CardGrid(fill);
  let tags: Record<string, string[]> = {};
  const filter = h("input", {
    type: "search",
    class: "tag-filter",
    placeholder: "Filter tags (regex)",
    "aria-label": "Filter tags by regular expression",
    spellcheck: "false",
  });
  const error = h("span", { class: "error", role: "alert" });
  filter.addEventListener("input", () => {
    const problem = regexProblem(filter.value);
    error.textContent = problem ?? "";
    if (problem === null) update({ tagFilter: filter.value });
  });
  const element = h(
    "section",
    { class: `dashboard ${id}`, "aria-label": title },
    h("div", { class: "toolbar" }, h("span", { class: "field" }, filter, error), ...tools, grid.summary),
    grid.element,
  );
  function syncFilter(): void {
    if (document.activeElement === filter) return;
    filter.value = state.tagFilter;
    error.textContent = regexProblem(state.tagFilter) ?? "";
  }
  return {
    id,
    title,
    plugin,
    element,
    async refresh() {
      syncFilter();
      const listing = await getJson<Listing>(`data/plugin/${plugin}/tags`);
      tags = Object.fromEntries(
        Object.entries(listing).map(([run, found]) => [run, Array.isArray(found) ? found : Object.keys(found)]),
      );
      samples.set(plugin, listing);
      grid.layout(tags);
      grid.refresh();
    },
    onState(changed) {
      syncFilter();
      if (changed.has("runs") || changed.has("runFilter") || changed.has("tagFilter")) grid.layout(tags);
      if (changed.has("histogramMode")) grid.refresh();
    },
  };
}

const samples = new Map<string, Listing>();

/** Keeps a plugin's tag listing: its samples per image or audio tag, which a card's fill asks for. */
export function rememberListing(plugin: string, listing: Listing): void {
  samples.set(plugin, listing);
}

function sampleCount(plugin: string, run: string, tag: string): number {
  const listing = samples.get(plugin) as Record<string, Record<string, { samples?: number }>> | undefined;
  return Math.max(1, listing?.[run]?.[tag]?.samples ?? 1);
}

interface MediaPoint {
  wall_time: number;
  step: number;
  query: string;
  label?: string;
  contentType?: string;
}

/** A slider over the steps of `steps`, starting at the last; `show` draws the step at an index. */
function stepSlider(steps: number[], show: (index: number) => void): HTMLElement {
  const caption = h("span", { class: "step" });
  const slider = h("input", {
    type: "range",
    class: "step-slider",
    min: 0,
    max: Math.max(0, steps.length - 1),
    step: 1,
    value: Math.max(0, steps.length - 1),
    "aria-label": "Step",
  });
  const select = () => {
    const index = Number(slider.value);
    caption.textContent = `step ${steps[index]} (${index + 1} of ${steps.length})`;
    show(index);
  };
  slider.addEventListener("input", select);
  queueMicrotask(select);
  return h("div", { class: "slider" }, slider, caption);
}

async function mediaFill(
  plugin: "images" | "audio",
  body: HTMLElement,
  run: string,
  tag: string,
  make: (point: MediaPoint, sample: number) => HTMLElement,
): Promise<void> {
  const count = sampleCount(plugin, run, tag);
  const bySample = await Promise.all(
    Array.from({ length: count }, (_, sample) =>
      getJson<MediaPoint[]>(`data/plugin/${plugin}/${plugin}`, { run, tag, sample: String(sample) }),
    ),
  );
  const steps = [...new Set(bySample.flat().map((point) => point.step))].sort((a, b) => a - b);
  const items = h("div", { class: "samples" });
  body.replaceChildren(
    stepSlider(steps, (index) => {
      const step = steps[index];
      items.replaceChildren(
        ...bySample.flatMap((points, sample) =>
          points.filter((point) => point.step === step).map((point) => make(point, sample)),
        ),
      );
    }),
    items,
  );
  body.dataset.steps = String(steps.length);
}

/** An image card's body: a step slider over every sample of the step (the Time Series page's image cards too); a
 * click enlarges an image. */
export const fillImages: Fill = (body, run, tag) =>
  mediaFill("images", body, run, tag, (point, sample) =>
    h(
      "figure",
      {},
      h("img", {
        src: `data/plugin/images/individualImage?${point.query}`,
        alt: `${tag} at step ${point.step}, sample ${sample + 1}`,
        title: "Click to enlarge",
        "data-step": point.step,
        "data-sample": sample,
        onclick: (event: Event) => enlarge(event.currentTarget as HTMLImageElement),
      }),
    ),
  );

const images = dashboard(
  "images",
  "Images",
  "images",
  fillImages,
  imageTools(() => images.element),
);

const audio = dashboard("audio", "Audio", "audio", (body, run, tag) =>
  mediaFill("audio", body, run, tag, (point, sample) =>
    h(
      "figure",
      {},
      h("audio", {
        controls: true,
        preload: "none",
        src: `data/plugin/audio/individualAudio?${point.query}`,
        "data-step": point.step,
        "data-sample": sample,
      }),
      h("figcaption", {}, point.label ? point.label : `sample ${sample + 1}`),
    ),
  ),
);

// Markdown arrives rendered and sanitised by the server; it is still rebuilt here from an allow-list, element by
// element, so that nothing the server let through can run.
const ALLOWED = new Set(
  "p h1 h2 h3 h4 h5 h6 table thead tbody tr th td strong em b i code pre ul ol li blockquote br hr span div del a".split(
    " ",
  ),
);

function rebuild(node: Node): Node[] {
  if (node.nodeType === Node.TEXT_NODE) return [document.createTextNode(node.textContent ?? "")];
  if (!(node instanceof Element)) return [];
  const name = node.tagName.toLowerCase();
  if (name === "script" || name === "style") return [];
  const children = [...node.childNodes].flatMap(rebuild);
  if (!ALLOWED.has(name)) return children;
  const copy = document.createElement(name);
  const href = node.getAttribute("href");
  if (name === "a" && href && /^https?:\/\//i.test(href)) {
    copy.setAttribute("href", href);
    copy.setAttribute("rel", "noopener noreferrer");
    copy.setAttribute("target", "_blank");
  }
  copy.append(...children);
  return [copy];
}

export function safeHtml(html: string): Node[] {
  const parsed = new DOMParser().parseFromString(html, "text/html");
  return [...parsed.body.childNodes].flatMap(rebuild);
}

// TensorBoard's "Enable Markdown" setting: off, the server answers the raw text (escaped), as TensorBoard shows it.
const markdown = h("input", { type: "checkbox", id: "text-markdown", checked: true });
markdown.addEventListener("change", () => void text.refresh());

const text = dashboard(
  "text",
  "Text",
  "text",
  async (body, run, tag) => {
    const points = await getJson<{ wall_time: number; step: number; text: string }[]>("data/plugin/text/text", {
      run,
      tag,
      ...(markdown.checked ? {} : { markdown: "false" }),
    });
    const steps = points.map((point) => point.step);
    const shown = h("div", { class: "text-body" });
    body.replaceChildren(
      stepSlider(steps, (index) => {
        const found = points[index]?.text ?? "";
        // Without markdown the server answers the text as it was written: shown as text, never as markup.
        shown.replaceChildren(...(markdown.checked ? safeHtml(found) : [h("pre", { class: "raw-text" }, found)]));
      }),
      shown,
    );
    body.dataset.steps = String(steps.length);
    body.dataset.markdown = String(markdown.checked);
  },
  [h("label", {}, markdown, " Markdown")],
);

const histogramMode = h(
  "select",
  { id: "histogram-mode", "aria-label": "Histogram mode" },
  h("option", { value: "offset" }, "Offset"),
  h("option", { value: "overlay" }, "Overlay"),
);
histogramMode.addEventListener("change", () =>
  update({ histogramMode: histogramMode.value as State["histogramMode"] }),
);

/** A histogram card's body: every step's histogram, offset or overlaid (the Time Series page's too). */
export const fillHistograms: Fill = async (body, run, tag) => {
  histogramMode.value = state.histogramMode;
  const points = await getJson<HistogramPoint[]>("data/plugin/histograms/histograms", { run, tag });
  const chart = histogramChart(
    points,
    colorOf(run),
    state.histogramMode,
    Math.max(300, body.clientWidth || 420),
    `${tag} of ${run}: ${points.length} steps`,
  );
  const readout = h("p", { class: "readout" });
  body.replaceChildren(chart, readout);
  body.dataset.steps = String(points.length);
  readout.textContent = points.length
    ? `${points.length} steps, ${points[0]![1]} to ${points[points.length - 1]![1]}`
    : "no data";
};

const histograms = dashboard("histograms", "Histograms", "histograms", fillHistograms, [
  h("label", {}, "Mode ", histogramMode),
]);

// TensorBoard's basis points of a compressed histogram, and the bands drawn between them.
const BASIS_POINTS = [0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000];

const distributions = dashboard("distributions", "Distributions", "distributions", async (body, run, tag) => {
  const points = await getJson<[number, number, [number, number][]][]>("data/plugin/distributions/distributions", {
    run,
    tag,
  });
  const color = colorOf(run);
  const data: uPlot.AlignedData = [
    points.map((point) => point[1]),
    ...BASIS_POINTS.map((_, index) => points.map((point) => Number(point[2][index]?.[1] ?? NaN))),
  ];
  const holder = h("div", { class: "plot" });
  body.replaceChildren(holder);
  body.dataset.steps = String(points.length);
  new uPlot(
    {
      width: Math.max(300, body.clientWidth || 420),
      height: 240,
      legend: { show: false },
      scales: { x: { time: false } },
      axes: [themedAxis(), themedAxis({ size: 60 })],
      series: [
        {},
        ...BASIS_POINTS.map((point) => ({
          label: `p${point / 100}`,
          stroke: withAlpha(color, point === 5000 ? 1 : 0.5),
          width: point === 5000 ? 1.5 : 1,
          points: { show: false },
        })),
      ],
      bands: [0, 1, 2, 3].map((index) => ({
        series: [BASIS_POINTS.length - index, index + 1] as [number, number],
        fill: withAlpha(color, 0.12),
      })),
    },
    data,
    holder,
  );
  // The median's values, as text the tests and screen readers can read.
  holder.setAttribute(
    "aria-label",
    `${tag} of ${run}: median at the last step ${formatNumber(Number(data[5]?.[data[5].length - 1] ?? NaN))}`,
  );
});

export const all: Dashboard[] = [histograms, distributions, images, audio, text];
