// The dashboards' tabs in one row: those that do not fit go to a "More" menu at its end (the shown one always stays
// in the row), so that no tab is hidden or overlapped at any width. The arrow keys move between the tabs of the row.

import { h } from "./dom";

export interface Tab {
  id: string;
  title: string;
}

export class TabStrip {
  readonly element: HTMLElement;
  private readonly row = h("nav", { class: "tabs", role: "tablist", "aria-label": "Dashboards" });
  private readonly more = h(
    "button",
    { type: "button", id: "tabs-more", "aria-haspopup": "menu", "aria-expanded": "false", hidden: true },
    "More ▾",
  );
  private readonly menu = h("div", { class: "tabs-menu", id: "tabs-menu", role: "menu", hidden: true });
  private tabs: Tab[] = [];
  private selected: string | null = null;

  /** `choose` is told the id of the tab clicked. */
  constructor(private readonly choose: (id: string) => void) {
    this.element = h("div", { class: "tab-strip" }, this.row, h("div", { class: "tabs-more" }, this.more, this.menu));
    this.more.addEventListener("click", () => this.open(this.menu.hidden));
    document.addEventListener("click", (event) => {
      if (!this.element.contains(event.target as Node)) this.open(false);
    });
    this.element.addEventListener("keydown", (event) => this.key(event));
    // The strip takes the header's free width: it changes with the window, not with the tabs in it.
    new ResizeObserver(() => this.fit()).observe(this.element);
  }

  /** Shows `tabs`, the one of id `selected` (if any) marked and always in the row. */
  show(tabs: Tab[], selected: string | null): void {
    if (selected === this.selected && JSON.stringify(tabs) === JSON.stringify(this.tabs)) return;
    const focused = this.element.contains(document.activeElement);
    this.tabs = tabs;
    this.selected = selected;
    this.fit();
    if (focused) this.row.querySelector<HTMLElement>('[aria-selected="true"]')?.focus();
  }

  /** Puts every tab in the row, then moves the last ones but the selected to the menu until the row fits. */
  private fit(): void {
    const buttons = this.tabs.map((tab) => this.button(tab));
    this.row.replaceChildren(...buttons);
    this.menu.replaceChildren();
    this.more.hidden = true;
    const overflows = () => this.row.scrollWidth > this.row.clientWidth;
    if (!overflows()) return this.open(false);
    this.more.hidden = false;
    for (let index = buttons.length - 1; index >= 0 && overflows(); index--) {
      if (this.tabs[index]!.id === this.selected) continue;
      buttons[index]!.setAttribute("role", "menuitem");
      buttons[index]!.removeAttribute("aria-selected");
      this.menu.prepend(buttons[index]!);
    }
  }

  private button(tab: Tab): HTMLButtonElement {
    const selected = tab.id === this.selected;
    const button = h(
      "button",
      {
        type: "button",
        role: "tab",
        id: `tab-${tab.id}`,
        "aria-selected": selected ? "true" : "false",
        tabindex: selected ? 0 : -1,
      },
      tab.title,
    );
    button.addEventListener("click", () => {
      this.open(false);
      this.choose(tab.id);
    });
    return button;
  }

  private open(open: boolean): void {
    this.menu.hidden = !open;
    this.more.setAttribute("aria-expanded", String(open));
    if (open) this.menu.querySelector("button")?.focus();
  }

  private key(event: KeyboardEvent): void {
    if (event.key === "Escape" && !this.menu.hidden) {
      this.open(false);
      this.more.focus();
      return;
    }
    const step =
      event.key === "ArrowRight" || event.key === "ArrowDown"
        ? 1
        : event.key === "ArrowLeft" || event.key === "ArrowUp"
          ? -1
          : 0;
    const inMenu = this.menu.contains(document.activeElement);
    const buttons = [...(inMenu ? this.menu : this.row).querySelectorAll("button")];
    const index = buttons.findIndex((button) => button === document.activeElement);
    if (!step || index < 0) return;
    event.preventDefault();
    const next = buttons[(index + step + buttons.length) % buttons.length]!;
    // In the row a tab is shown as it is reached (as before); in the menu, Enter shows it.
    if (inMenu) next.focus();
    else next.click();
  }
}
