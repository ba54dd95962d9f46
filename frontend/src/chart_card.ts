// The one chart card: a titled card around a Chart, with its own log-y switch, an optional legend, reset zoom and
// full screen, and room for the caller's buttons (downloads, pin) and content (a step table, a group chart). Scalars,
// Time Series and Custom scalars draw every line chart in one of these.

import { Chart, type ChartOptions, type Line } from "./chart";
import { MARKERS } from "./chart_draw";
import { h } from "./dom";
import type { CardSize } from "./state";

/** A chart's height in pixels, by card size. */
const HEIGHTS: Record<CardSize, number> = { small: 180, medium: 240, large: 360 };

// What the user switched on a card (log y, the legend), by the card's key: kept while the page is open, when the card
// is laid out again or a filter drops it for a while.
const logYOf = new Map<string, boolean>();
const legendOf = new Map<string, boolean>();

let fullscreenCard: { exit: () => void } | null = null;
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") fullscreenCard?.exit();
});

export interface ChartCardParts {
  /** What the card's choices are kept under. */
  key: string;
  title: string;
  /** The heading's hover text (the title when absent). */
  hint?: string;
  /** The card's own class names and attributes, beside "card". */
  className?: string;
  attributes?: Record<string, string>;
  /** The caller's buttons, before the card's own. */
  actions?: HTMLElement[];
  /** Whether the legend shows until the user says otherwise. */
  legend?: boolean;
}

export class ChartCard {
  readonly element: HTMLElement;
  readonly chart: Chart;
  /** The header's row of buttons (a caller may add more). */
  readonly actions: HTMLElement;
  private readonly legend = h("ul", { class: "legend", hidden: true });
  private readonly logButton: HTMLButtonElement;
  private readonly legendButton: HTMLButtonElement;
  private readonly fullButton: HTMLButtonElement;
  private lines: Line[] = [];
  private options: ChartOptions | null = null;
  private size: CardSize = "medium";

  constructor(private readonly parts: ChartCardParts) {
    this.chart = new Chart(parts.title);
    const toggle = (label: string, className: string, onclick: () => void) =>
      h("button", { type: "button", class: className, "aria-pressed": "false", onclick }, label);
    this.logButton = toggle("Log y", "log-y", () => this.setLogY(!this.logY));
    this.legendButton = toggle("Legend", "legend-toggle", () => this.setLegend(!this.legendShown));
    this.fullButton = h(
      "button",
      { type: "button", class: "full", onclick: () => this.setFullscreen(!this.full) },
      "Full screen",
    );
    this.actions = h(
      "span",
      { class: "actions" },
      ...(parts.actions ?? []),
      this.logButton,
      this.legendButton,
      h("button", { type: "button", class: "reset", onclick: () => this.chart.resetZoom() }, "Reset zoom"),
      this.fullButton,
    );
    this.element = h(
      "article",
      { class: `card chart-card ${parts.className ?? ""}`.trim(), ...parts.attributes },
      h("header", {}, h("h3", { title: parts.hint ?? parts.title }, parts.title), this.actions),
      this.chart.element,
      this.legend,
    );
    this.legend.addEventListener("mouseover", (event) => {
      const item = (event.target as HTMLElement).closest<HTMLElement>("li[data-run]");
      this.chart.focusRun(item?.dataset.run ?? null);
    });
    this.legend.addEventListener("mouseleave", () => this.chart.focusRun(null));
    this.syncButtons();
  }

  get logY(): boolean {
    return logYOf.get(this.parts.key) ?? false;
  }

  get legendShown(): boolean {
    return legendOf.get(this.parts.key) ?? this.parts.legend ?? false;
  }

  get full(): boolean {
    return this.element.classList.contains("fullscreen");
  }

  /** Draws `lines` with `options`, on this card's own y scale (log or linear). */
  set(lines: Line[], options: ChartOptions): void {
    this.lines = lines;
    this.options = options;
    this.chart.set(lines, { ...options, logY: this.logY });
    if (this.legendShown) this.renderLegend();
  }

  setSize(size: CardSize): void {
    if (size === this.size) return;
    this.size = size;
    if (!this.full) this.chart.setHeight(HEIGHTS[size]);
  }

  setFullscreen(on: boolean): void {
    if (on) fullscreenCard?.exit();
    this.element.classList.toggle("fullscreen", on);
    document.body.classList.toggle("card-fullscreen", on);
    this.fullButton.textContent = on ? "Exit full screen" : "Full screen";
    this.fullButton.setAttribute("aria-pressed", String(on));
    fullscreenCard = on ? { exit: () => this.setFullscreen(false) } : null;
    if (on) {
      window.addEventListener("resize", this.fitWindow);
      this.fitWindow();
      this.fullButton.focus();
    } else {
      window.removeEventListener("resize", this.fitWindow);
      this.chart.setHeight(HEIGHTS[this.size]);
    }
  }

  destroy(): void {
    if (this.full) this.setFullscreen(false);
    this.chart.destroy();
  }

  /** A full-screen chart takes the window's height, less the card's header and legend. */
  private readonly fitWindow = (): void => {
    const header = this.element.querySelector("header")?.getBoundingClientRect().height ?? 30;
    const legend = this.legend.hidden ? 0 : Math.min(120, this.legend.getBoundingClientRect().height);
    this.chart.setHeight(Math.max(HEIGHTS.medium, Math.floor(window.innerHeight - header - legend - 40)));
  };

  private setLogY(on: boolean): void {
    logYOf.set(this.parts.key, on);
    this.syncButtons();
    if (this.options) this.set(this.lines, this.options);
  }

  private setLegend(on: boolean): void {
    legendOf.set(this.parts.key, on);
    this.syncButtons();
    if (on) this.renderLegend();
  }

  private syncButtons(): void {
    this.logButton.setAttribute("aria-pressed", String(this.logY));
    this.legendButton.setAttribute("aria-pressed", String(this.legendShown));
    this.legend.hidden = !this.legendShown;
  }

  private renderLegend(): void {
    this.legend.replaceChildren(
      ...this.lines.map((line) =>
        h(
          "li",
          { "data-run": line.run, title: line.label ?? line.run },
          h("span", {
            class: "swatch",
            style: `background:${line.color}`,
            "data-marker": line.marker === undefined ? null : MARKERS[line.marker % MARKERS.length],
          }),
          h("span", { class: "name" }, line.label ?? line.run),
        ),
      ),
    );
  }
}
