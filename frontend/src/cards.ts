// Cards of one (run, tag) each, grouped by the tag's prefix, filled when they come near the screen: what the
// histogram, distribution, image, audio and text dashboards share.

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
  visible: boolean;
  stale: boolean;
  filling: boolean;
}

export class CardGrid {
  readonly element = h("div", { class: "groups" });
  readonly summary = h("span", { class: "count" });
  private readonly cards = new Map<string, Card>();
  private readonly observer: IntersectionObserver;

  constructor(private readonly fill: Fill) {
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const card = [...this.cards.values()].find((candidate) => candidate.element === entry.target);
          if (!card) continue;
          card.visible = entry.isIntersecting;
          if (card.visible) void this.show(card);
        }
      },
      { rootMargin: "300px" },
    );
  }

  /** Lays out a card for each tag of each shown run that the tag filter matches. */
  layout(tagsByRun: Record<string, string[]>): void {
    const pattern = regex(state.tagFilter);
    const byGroup = new Map<string, [string, string][]>();
    const tags = new Set<string>();
    for (const run of selectedRuns()) for (const tag of tagsByRun[run] ?? []) tags.add(tag);
    for (const tag of [...tags].sort()) {
      if (pattern && !pattern.test(tag)) continue;
      const group = tag.includes("/") ? tag.slice(0, tag.indexOf("/")) : tag;
      for (const run of selectedRuns()) {
        if (!(tagsByRun[run] ?? []).includes(tag)) continue;
        byGroup.set(group, [...(byGroup.get(group) ?? []), [run, tag]]);
      }
    }
    const keep = new Set([...byGroup.values()].flat().map(([run, tag]) => key(run, tag)));
    for (const [name, card] of this.cards) {
      if (keep.has(name)) continue;
      this.observer.unobserve(card.element);
      this.cards.delete(name);
    }
    const open = new Map(
      [...this.element.querySelectorAll("details")].map((details) => [details.dataset.group, details.open]),
    );
    const sections = [...byGroup].map(([group, pairs]) =>
      h(
        "details",
        { class: "group", "data-group": group, open: open.get(group) ?? true },
        h("summary", {}, h("span", { class: "group-name" }, group), h("span", { class: "count" }, ` ${pairs.length}`)),
        h("div", { class: "cards" }, ...pairs.map(([run, tag]) => this.card(run, tag).element)),
      ),
    );
    this.element.replaceChildren(
      ...(sections.length ? sections : [h("p", { class: "empty" }, "No data for the shown runs.")]),
    );
    this.summary.textContent = `${formatCount(keep.size)} cards`;
  }

  /** Marks every card for a new fill, and fills the ones in view. */
  refresh(): void {
    for (const card of this.cards.values()) {
      card.stale = true;
      if (card.visible) void this.show(card);
    }
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
    const card: Card = { element, body, run, tag, visible: false, stale: true, filling: false };
    this.cards.set(key(run, tag), card);
    this.observer.observe(element);
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
