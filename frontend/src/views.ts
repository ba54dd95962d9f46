// Saved views: the page's state (the URL's fragment: dashboard, filter, selection, table columns and sort, groups, pins,
// smoothing, x axis, ...) kept in the store under a name (`/data/trainboard/views`), listed here, opened by a link
// (`#view=<id or name>`), renamed and deleted. Saving, renaming and deleting are hidden where the page may not write
// (a pinned view, the read role on a team server: write_access), and once the server refused a write.

import { ApiError, getJson, postJson } from "./api";
import { formatDate, h } from "./dom";
import { commitUrl } from "./state";
import { writable } from "./write_access";

interface ViewEntry {
  id: string;
  name: string;
  created: number;
  updated: number;
}

interface SavedState {
  /** The URL's fragment, without its `#`. */
  hash: string;
}

const ROUTE = "data/trainboard/views";
/** The server refused a write: writing is hidden from then on. */
let refused = false;
/** Until the server says whether this page may write, writing is hidden. */
let readOnly = true;

const nameInput = h("input", {
  type: "text",
  id: "view-name",
  placeholder: "View name",
  "aria-label": "Name of the view to save",
  maxlength: 200,
});
const saveButton = h("button", { type: "button", id: "save-view", onclick: () => void save() }, "Save view");
const list = h("ul", { class: "view-list", id: "view-list" });
const problem = h("div", { class: "error", id: "view-problem", role: "alert" });
const saving = h("div", { class: "run-tools", hidden: true }, nameInput, saveButton);

export const element = h(
  "details",
  { class: "views", id: "views" },
  h("summary", {}, "Saved views"),
  saving,
  problem,
  list,
);

element.addEventListener("toggle", () => {
  if (element.open) void refresh();
});
nameInput.addEventListener("keydown", (event) => {
  if ((event as KeyboardEvent).key === "Enter") void save();
});

/** The view a URL names (`#view=…`), if any. */
function named(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, "")).get("view");
}

/** Opens the view: its state becomes the URL's fragment, which the page then shows. */
async function open(key: string): Promise<void> {
  try {
    const view = await getJson<ViewEntry & { state: SavedState }>(`${ROUTE}/${encodeURIComponent(key)}`);
    location.hash = view.state.hash;
    problem.textContent = "";
  } catch (error) {
    problem.textContent = (error as Error).message;
    element.open = true;
  }
}

// Read before the page's state writes the URL again (it drops what it does not know, such as `view`).
const first = named(location.hash);
if (first !== null) void open(first);
window.addEventListener("hashchange", (event) => {
  const key = named(new URL(event.newURL).hash);
  if (key !== null) void open(key);
});

async function refresh(): Promise<void> {
  let views: ViewEntry[];
  readOnly = refused || !(await writable());
  try {
    views = (await getJson<{ views: ViewEntry[] }>(ROUTE)).views;
  } catch (error) {
    problem.textContent = (error as Error).message;
    return;
  }
  saving.hidden = readOnly;
  list.replaceChildren(
    ...views.map((view) =>
      h(
        "li",
        { "data-view": view.name },
        h(
          "a",
          {
            href: `#view=${encodeURIComponent(view.id)}`,
            class: "view-link",
            title: `Saved ${formatDate(view.updated)}`,
          },
          view.name,
        ),
        readOnly
          ? null
          : h("button", { type: "button", class: "rename-view", onclick: () => startRename(view) }, "Rename"),
        readOnly
          ? null
          : h("button", { type: "button", class: "delete-view", onclick: () => void remove(view) }, "Delete"),
      ),
    ),
  );
  if (!views.length) list.replaceChildren(h("li", { class: "muted" }, "No saved views"));
}

/** Runs a write; a refusal says why, and one for the role hides writing. */
async function write(action: () => Promise<unknown>): Promise<boolean> {
  try {
    await action();
    problem.textContent = "";
    return true;
  } catch (error) {
    if (error instanceof ApiError && [401, 403, 405].includes(error.status)) refused = true;
    problem.textContent = (error as Error).message;
    return false;
  } finally {
    await refresh();
  }
}

async function save(): Promise<void> {
  const name = nameInput.value.trim();
  if (!name) {
    nameInput.focus();
    return;
  }
  commitUrl();
  const state: SavedState = { hash: location.hash.replace(/^#/, "") };
  if (await write(() => postJson(ROUTE, { name, state }))) nameInput.value = "";
}

function startRename(view: ViewEntry): void {
  const item = list.querySelector<HTMLElement>(`li[data-view="${CSS.escape(view.name)}"]`);
  if (!item) return;
  const input = h("input", { type: "text", class: "rename-input", "aria-label": `New name of ${view.name}` });
  input.value = view.name;
  input.addEventListener("keydown", (event) => {
    const key = (event as KeyboardEvent).key;
    if (key === "Escape") void refresh();
    else if (key === "Enter" && input.value.trim() && input.value.trim() !== view.name) {
      const name = input.value.trim();
      void write(() => postJson(`${ROUTE}/${encodeURIComponent(view.id)}/rename`, { name }));
    }
  });
  item.replaceChildren(input);
  input.focus();
}

async function remove(view: ViewEntry): Promise<void> {
  await write(async () => {
    const response = await fetch(`${ROUTE}/${encodeURIComponent(view.id)}`, { method: "DELETE" });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { error?: string };
      throw new ApiError(body.error ?? `${response.status}`, response.status);
    }
  });
}
