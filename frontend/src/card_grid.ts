// The one lazy card grid: cards in collapsible groups (a group stays open or closed as the user left it), laid out in
// columns as wide as the card size allows and filling the row, each card shown (filled, drawn) when it comes near
// the screen. Cards that arrive together are shown one per task: a scroll that brings ten in keeps the page
// responsive, and a card scrolled past before its turn costs nothing.

import { h } from "./dom";
import type { CardSize } from "./state";

export interface GridCard {
  element: HTMLElement;
}

/** A tag's group: its prefix before the first "/" (the tag itself when it has none). */
export function groupOf(tag: string): string {
  return tag.includes("/") ? tag.slice(0, tag.indexOf("/")) : tag;
}

export class LazyCardGrid<C extends GridCard> {
  readonly element = h("div", { class: "groups" });
  private readonly observer: IntersectionObserver;
  private readonly byElement = new Map<Element, C>();
  private readonly visible = new Set<C>();
  private readonly arriving = new Set<C>();
  private draining = false;

  constructor(private readonly show: (card: C) => void) {
    this.observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const card = this.byElement.get(entry.target);
          if (!card) continue;
          if (entry.isIntersecting) {
            this.visible.add(card);
            this.arriving.add(card);
          } else this.visible.delete(card);
        }
        if (this.arriving.size && !this.draining) {
          this.draining = true;
          setTimeout(this.showArriving, 0);
        }
      },
      { rootMargin: "300px" },
    );
  }

  /** Lays out `byGroup` (an empty map shows `empty`), watching its cards and `elsewhere` (cards the caller places
   * outside the groups, as pinned ones). Cards given before and not now are no longer watched: they are returned. */
  layout(byGroup: Map<string, C[]>, empty: string, elsewhere: C[] = []): C[] {
    const cards = new Set([...elsewhere, ...[...byGroup.values()].flat()]);
    const dropped: C[] = [];
    for (const [element, card] of this.byElement) {
      if (cards.has(card)) continue;
      this.observer.unobserve(element);
      this.byElement.delete(element);
      this.visible.delete(card);
      this.arriving.delete(card);
      dropped.push(card);
    }
    for (const card of cards) {
      if (this.byElement.has(card.element)) continue;
      this.byElement.set(card.element, card);
      this.observer.observe(card.element);
    }
    const open = new Map(
      [...this.element.querySelectorAll("details")].map((details) => [details.dataset.group, details.open]),
    );
    this.element.replaceChildren(
      ...[...byGroup].map(([group, members]) =>
        h(
          "details",
          { class: "group", "data-group": group, open: open.get(group) ?? true },
          h(
            "summary",
            {},
            h("span", { class: "group-name" }, group),
            h("span", { class: "count" }, ` ${members.length}`),
          ),
          cardRow(members),
        ),
      ),
    );
    if (byGroup.size === 0) this.element.replaceChildren(h("p", { class: "empty" }, empty));
    return dropped;
  }

  /** The cards near the screen. */
  shown(): C[] {
    return [...this.visible];
  }

  setSize(size: CardSize): void {
    this.element.dataset.cardSize = size;
  }

  private readonly showArriving = (): void => {
    const [card] = this.arriving;
    if (card) {
      this.arriving.delete(card);
      if (this.visible.has(card)) this.show(card);
    }
    this.draining = this.arriving.size > 0;
    if (this.draining) setTimeout(this.showArriving, 0);
  };
}

// New charts are drawn one per frame: the first at once, those whose data arrive in the same frame each at its turn,
// in a task after the next frame. Cards whose data arrive together (a scroll brings several in) then neither paint in
// one long frame nor draw in one long task.
const turns: (() => void)[] = [];
// Whether a card drew since the last frame (then a frame callback is pending, which gives the next turn).
let frameTaken = false;

/** Resolves when the caller may draw a new chart: at once, or at its turn. */
export function drawTurn(): Promise<void> {
  if (!frameTaken) {
    frameTaken = true;
    requestAnimationFrame(afterFrame);
    return Promise.resolve();
  }
  return new Promise((resolve) => turns.push(resolve));
}

function afterFrame(): void {
  setTimeout(() => {
    const next = turns.shift();
    if (!next) {
      frameTaken = false;
      return;
    }
    next();
    requestAnimationFrame(afterFrame);
  }, 0);
}

/** A row of cards laid out as the grid lays out its groups. */
export function cardRow(cards: GridCard[]): HTMLElement {
  return h("div", { class: "cards" }, ...cards.map((card) => card.element));
}
