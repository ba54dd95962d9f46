// Cards of one (run, tag) each, grouped by the tag's prefix, filled when they come near the screen (the one lazy card
// grid): what the histogram, distribution, image, audio and text dashboards share.

import { LazyCardGrid, groupOf } from "./card_grid";
import { colorOf } from "./colors";
import { formatCount, h } from "./dom";
import { regex } from "./regex";
import { selectedRuns } from "./runs";
import { state } from "./state";

export type Fill = (body: HTMLElement, run: string, tag: string) => Promise<void>;

interface Card {
  element: HTMLElement;
  body: HTMLElement;
  run: string;
  tag: string;
  stale: boolean;
  filling: boolean;
}

export class CardGrid {
  readonly summary = h("span", { class: "count" });
  private readonly cards = new Map<string, Card>();
  private readonly grid = new LazyCardGrid<Card>((card) => void this.show(card));

  constructor(private readonly fill: Fill) {}

  get element(): HTMLElement {
    return this.grid.element;
  }

  /** Lays out a card for each tag of each shown run that the tag filter matches. */
  layout(tagsByRun: Record<string, string[]>): void {
    const pattern = regex(state.tagFilter);
    const byGroup = new Map<string, Card[]>();
    const tags = new Set<string>();
    for (const run of selectedRuns()) for (const tag of tagsByRun[run] ?? []) tags.add(tag);
    let count = 0;
    for (const tag of [...tags].sort()) {
      if (pattern && !pattern.test(tag)) continue;
      const group = groupOf(tag);
      for (const run of selectedRuns()) {
        if (!(tagsByRun[run] ?? []).includes(tag)) continue;
        byGroup.set(group, [...(byGroup.get(group) ?? []), this.card(run, tag)]);
        count++;
      }
    }
    for (const card of this.grid.layout(byGroup, "No data for the shown runs.")) {
      this.cards.delete(key(card.run, card.tag));
    }
    this.summary.textContent = `${formatCount(count)} cards`;
  }

  /** Marks every card for a new fill, and fills the ones in view. */
  refresh(): void {
    for (const card of this.cards.values()) card.stale = true;
    for (const card of this.grid.shown()) void this.show(card);
  }

  private card(run: string, tag: string): Card {
    const found = this.cards.get(key(run, tag));
    if (found) return found;
    const body = h("div", { class: "card-body" });
    const element = h(
      "article",
      { class: "card", "data-run": run, "data-tag": tag },
      h(
        "header",
        {},
        h("h3", { title: tag }, tag),
        h(
          "span",
          { class: "card-run", title: run },
          h("span", { class: "swatch", style: `background:${colorOf(run)}` }),
          ` ${run}`,
        ),
      ),
      body,
    );
    const card: Card = { element, body, run, tag, stale: true, filling: false };
    this.cards.set(key(run, tag), card);
    return card;
  }

  private async show(card: Card): Promise<void> {
    if (!card.stale || card.filling) return;
    card.filling = true;
    card.stale = false;
    try {
      await this.fill(card.body, card.run, card.tag);
      card.element.dataset.filled = "true";
    } catch (error) {
      card.body.replaceChildren(h("p", { class: "error" }, String(error)));
    } finally {
      card.filling = false;
    }
  }
}

function key(run: string, tag: string): string {
  return `${run}\u0000${tag}`;
}
