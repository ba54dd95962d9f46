// The chart tooltip's table, one for the page (one cursor, one tooltip), kept from one move to the next: its rows are
// filled again in place (new text in the same text nodes), so that a move over 100 runs costs the layout of the
// changed text, not the styles and layout of a new table's hundreds of elements.

import { h } from "./dom";

export interface TooltipTableRow {
  run: string;
  label: string;
  color: string;
  nearest: boolean;
  /** The cells after the run's name: smoothed, value, step, relative time. */
  cells: [string, string, string, string];
}

interface RowParts {
  row: HTMLTableRowElement;
  swatch: HTMLElement;
  texts: Text[];
}

const HEADINGS = ["", "Run", "Smoothed", "Value", "Step", "Relative"];
const CLASSES = ["run", "smoothed", "value", "step", "relative"];

export class TooltipTable {
  readonly element = h("table", {}, h("thead", {}, h("tr", {}, ...HEADINGS.map((heading) => h("th", {}, heading)))));
  private readonly body = h("tbody");
  private readonly parts: RowParts[] = [];
  /** The paragraph under the table: how many runs are left out, the band's mean and std (hidden when empty). */
  private readonly moreText = document.createTextNode("");
  readonly more = h("p", { class: "more", hidden: true }, this.moreText);
  private readonly bandText = document.createTextNode("");
  readonly band = h("p", { class: "band", hidden: true }, this.bandText);

  constructor() {
    this.element.append(this.body);
  }

  /** Shows `rows` in a table `width` pixels wide (fixed layout: its widths are set, not measured from its cells). */
  fill(rows: TooltipTableRow[], width: number, more: string, band: string): void {
    if (this.element.style.width !== `${width}px`) this.element.style.width = `${width}px`;
    while (this.parts.length < rows.length) this.parts.push(newRow());
    this.parts.forEach((parts, index) => {
      const row = rows[index];
      if (!row) {
        if (parts.row.isConnected) parts.row.remove();
        return;
      }
      if (!parts.row.isConnected) this.body.append(parts.row);
      if (parts.row.dataset.run !== row.run) parts.row.dataset.run = row.run;
      if (parts.row.classList.contains("nearest") !== row.nearest) parts.row.classList.toggle("nearest", row.nearest);
      if (parts.swatch.dataset.color !== row.color) {
        parts.swatch.dataset.color = row.color;
        parts.swatch.style.background = row.color;
      }
      setText(parts.texts[0]!, row.label);
      row.cells.forEach((text, cell) => setText(parts.texts[cell + 1]!, text));
    });
    setText(this.moreText, more);
    this.more.hidden = more === "";
    setText(this.bandText, band);
    this.band.hidden = band === "";
  }
}

function newRow(): RowParts {
  const swatch = h("span", { class: "swatch" });
  const texts = CLASSES.map(() => document.createTextNode(""));
  const row = h(
    "tr",
    {},
    h("td", {}, swatch),
    ...texts.map((text, index) => h("td", { class: CLASSES[index]! }, text)),
  ) as HTMLTableRowElement;
  return { row, swatch, texts };
}

// Only what changed is written: an unchanged value written again can still mark the node for layout.
function setText(node: Text, text: string): void {
  if (node.data !== text) node.data = text;
}
