// The one chart card: a titled card around a Chart, with its own log-y switch and optional legend (both kept in the
// page's state, so in the URL), full screen, a "⋯" menu (reset zoom, the caller's downloads), and room for the
// caller's buttons (pin) and content (a step table, a group chart). Its header is one line: the title is cut with an
// ellipsis. Scalars, Time Series and Custom scalars draw every line chart in one of these.

import { Chart, type ChartOptions, type Line } from "./chart";
import { MARKERS } from "./chart_draw";
import { h, svg } from "./dom";
import { menuButton } from "./overlay";
import { state, update, type CardSize } from "./state";

/** A chart's height in pixels, by card size. */
const HEIGHTS: Record<CardSize, number> = { small: 180, medium: 240, large: 360 };

let fullscreenCard: { exit: () => void } | null = null;
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") fullscreenCard?.exit();
});

export interface ChartCardParts {
  /** What the card's choices (log y, the legend) are kept under, in its dashboard's state (and so in the URL): kept
   * when the card is laid out again or a filter drops it for a while. */
  key: string;
  title: string;
  /** The heading's hover text (the title when absent). */
  hint?: string;
  /** The card's own class names and attributes, beside "card". */
  className?: string;
  attributes?: Record<string, string>;
  /** The caller's buttons, before the card's own; and its less used ones (downloads), in the card's "⋯" menu. */
  actions?: HTMLElement[];
  menu?: HTMLElement[];
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
  private size: CardSize = "medium";

  constructor(private readonly parts: ChartCardParts) {
    this.chart = new Chart(parts.title);
    const toggle = (label: string, className: string, onclick: () => void) =>
      h("button", { type: "button", class: className, "aria-pressed": "false", onclick }, label);
    this.logButton = toggle("Log y", "log-y", () => this.setLogY(!this.logY));
    this.legendButton = toggle("Legend", "legend-toggle", () => this.setLegend(!this.legendShown));
    // An icon (four corners), named by its label: a narrow card's header keeps its title and buttons on one line.
    this.fullButton = h(
      "button",
      {
        type: "button",
        class: "full icon",
        "aria-label": "Full screen",
        title: "Full screen",
        onclick: () => this.setFullscreen(!this.full),
      },
      svg(
        "svg",
        { width: 12, height: 12, viewBox: "0 0 16 16", "aria-hidden": "true" },
        svg("path", {
          d: "M1 5V1h4M11 1h4v4M15 11v4h-4M5 15H1v-4",
          fill: "none",
          stroke: "currentColor",
          "stroke-width": 2,
        }),
      ),
    );
    this.actions = h(
      "span",
      { class: "actions" },
      ...(parts.actions ?? []),
      this.logButton,
      this.legendButton,
      this.fullButton,
      menuButton("⋯", { class: "more-actions", title: "More: reset zoom, downloads", "aria-label": "More actions" }, [
        h("button", { type: "button", class: "reset", onclick: () => this.chart.resetZoom() }, "Reset zoom"),
        ...(parts.menu ?? []),
      ]),
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
    return state.logYCards.includes(this.parts.key);
  }

  get legendShown(): boolean {
    return state.legendCards.includes(this.parts.key) !== (this.parts.legend ?? false);
  }

  get full(): boolean {
    return this.element.classList.contains("fullscreen");
  }

  /** Draws `lines` with `options`, on this card's own y scale (log or linear). */
  set(lines: Line[], options: ChartOptions): void {
    this.lines = lines;
    this.chart.set(lines, { ...options, logY: this.logY });
    this.syncButtons(); // the state may have changed by a link (back, a URL edited)
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
    this.fullButton.setAttribute("aria-label", on ? "Exit full screen" : "Full screen");
    this.fullButton.title = on ? "Exit full screen (Escape)" : "Full screen";
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

  // The page redraws its cards on a change of its state: this one with its new axis or legend.
  private setLogY(on: boolean): void {
    update({ logYCards: toggled(state.logYCards, this.parts.key, on) });
  }

  private setLegend(on: boolean): void {
    update({ legendCards: toggled(state.legendCards, this.parts.key, on !== (this.parts.legend ?? false)) });
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

/** `keys` with `key` in it or not. */
function toggled(keys: string[], key: string, present: boolean): string[] {
  const others = keys.filter((other) => other !== key);
  return present ? [...others, key] : others;
}
