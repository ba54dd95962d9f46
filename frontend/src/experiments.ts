// The experiments page: every experiment the user may read, searched by name, sorted by last update or by name; a
// new one created; each one's live link or a link pinned to now copied; and, for its admins, renamed, made public
// or private, shared with a user and a role, or deleted. Each row opens the experiment's dashboards.

import * as api from "./api";
import { formatAge, formatCount, formatDate, h } from "./dom";
import { header, showAccount, unreachableBanner } from "./header";
import { absolute, experimentPath } from "./place";

const ROLES: api.Role[] = ["read", "write", "admin"];

let me: api.Me = { auth: false, user: null };
let entries: api.ExperimentEntry[] = [];
/** The experiment whose admin panel is open, and the panel (kept while the list is drawn again). */
let open: { id: string; panel: HTMLElement } | null = null;

const search = h("input", {
  type: "search",
  id: "experiment-search",
  placeholder: "Search by name",
  "aria-label": "Search experiments by name",
  spellcheck: "false",
});
const sort = h(
  "select",
  { id: "experiment-sort", "aria-label": "Sort experiments by" },
  h("option", { value: "update" }, "Last update"),
  h("option", { value: "name" }, "Name"),
);
const newName = h("input", {
  type: "text",
  id: "new-experiment",
  placeholder: "New experiment name",
  "aria-label": "Name of a new experiment",
  required: true,
  spellcheck: "false",
});
const create = h(
  "form",
  { class: "create", id: "create-experiment" },
  newName,
  h("button", { type: "submit", class: "primary" }, "Create"),
);
const count = h("span", { class: "count", id: "experiment-count" });
const notice = h("div", { class: "notice", id: "notice", role: "status", "aria-live": "polite" });
const rows = h("tbody");
const table = h(
  "table",
  { class: "experiment-table", id: "experiments" },
  h(
    "thead",
    {},
    h(
      "tr",
      {},
      h("th", { scope: "col" }, "Name"),
      h("th", { scope: "col", class: "number" }, "Runs"),
      h("th", { scope: "col" }, "Last update"),
      h("th", { scope: "col", class: "access" }, "Access"),
      h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")),
    ),
  ),
  rows,
);
const empty = h("p", { class: "empty", id: "experiments-empty" });

search.addEventListener("input", render);
sort.addEventListener("change", render);
create.addEventListener("submit", (event) => {
  event.preventDefault();
  const name = newName.value.trim();
  if (!name) return;
  void act(`Created ${name}.`, async () => {
    await api.createExperiment(name);
    newName.value = "";
  });
});

/** Shows what happened, or what went wrong, above the list. */
function say(text: string, { error = false } = {}): void {
  notice.className = error ? "notice error" : "notice";
  notice.replaceChildren(text);
}

/** Runs a change, then reads the list again; says `done`, or the server's reason when it failed. */
async function act(done: string, change: () => Promise<unknown>): Promise<boolean> {
  try {
    await change();
  } catch (failure) {
    say(failure instanceof Error ? failure.message : String(failure), { error: true });
    return false;
  }
  say(done);
  await load();
  return true;
}

async function copy(what: string, path: string): Promise<void> {
  const url = absolute(path);
  let copied = false;
  try {
    await navigator.clipboard.writeText(url);
    copied = true;
  } catch {
    // No clipboard (a page over plain http) or refused: the link is shown, selected, to copy by hand.
  }
  const field = h("input", {
    class: "link",
    id: "shared-link",
    readonly: true,
    value: url,
    size: url.length,
    "aria-label": what,
  });
  notice.className = "notice";
  notice.replaceChildren(copied ? `${what} copied: ` : `${what}: `, field);
  if (!copied) field.select();
}

function shown(): api.ExperimentEntry[] {
  const words = search.value.trim().toLowerCase();
  const found = entries.filter((entry) => entry.name.toLowerCase().includes(words));
  if (sort.value === "name") return found.sort((a, b) => a.name.localeCompare(b.name));
  return found.sort((a, b) => b.lastUpdate - a.lastUpdate);
}

function render(): void {
  const list = shown();
  count.textContent =
    list.length === entries.length
      ? `${formatCount(entries.length)} experiment${entries.length === 1 ? "" : "s"}`
      : `${formatCount(list.length)} of ${formatCount(entries.length)} experiments`;
  empty.textContent =
    entries.length === 0
      ? "No experiments yet." + (create.hidden ? "" : " Create one to upload into, or ingest one into this store.")
      : list.length === 0
        ? "No experiment matches."
        : "";
  table.hidden = list.length === 0;
  rows.replaceChildren(
    ...list.flatMap((entry) => {
      const row = experimentRow(entry);
      return open?.id === entry.id ? [row, h("tr", { class: "manage" }, h("td", { colspan: 5 }, open.panel))] : [row];
    }),
  );
}

function experimentRow(entry: api.ExperimentEntry): HTMLElement {
  const admin = entry.role === "admin";
  const manage = h(
    "button",
    { type: "button", class: "manage-toggle", "aria-expanded": open?.id === entry.id ? "true" : "false" },
    "Manage",
  );
  manage.addEventListener("click", () => {
    open = open?.id === entry.id ? null : { id: entry.id, panel: managePanel(entry) };
    render();
  });
  const link = h("button", { type: "button", class: "copy-link" }, "Copy link");
  link.addEventListener("click", () => void copy(`Link to ${entry.name}`, experimentPath(entry.id)));
  const pinned = h(
    "button",
    { type: "button", class: "pin-link", title: "A link to the data as it is now: what is written later is not shown" },
    "Copy pinned link",
  );
  pinned.addEventListener("click", () => {
    pinned.disabled = true;
    api
      .pin(entry.id)
      .then(
        (made) =>
          copy(`Link to ${entry.name} pinned at ${formatDate(made.created)}`, experimentPath(entry.id, made.pin)),
        (failure: unknown) => say(`Could not pin ${entry.name}: ${String(failure)}`, { error: true }),
      )
      .finally(() => (pinned.disabled = false));
  });
  return h(
    "tr",
    { "data-id": entry.id, "data-name": entry.name, class: open?.id === entry.id ? "expanded" : null },
    h(
      "td",
      { class: "name" },
      h("a", { href: experimentPath(entry.id), class: "open" }, entry.name),
      entry.description ? h("div", { class: "description" }, entry.description) : null,
      entry.owner && !entry.owned ? h("div", { class: "owner" }, `Owner: ${entry.owner}`) : null,
    ),
    h("td", { class: "number" }, formatCount(entry.runCount)),
    h("td", { title: new Date(entry.lastUpdate * 1000).toString() }, formatAge(entry.lastUpdate)),
    h(
      "td",
      { class: "access" },
      entry.role ? h("span", { class: `badge role-${entry.role}` }, entry.role) : null,
      entry.public ? h("span", { class: "badge public" }, "public") : null,
    ),
    h("td", { class: "actions" }, link, pinned, admin ? manage : null),
  );
}

/** An admin's panel of one experiment: its name, who may read it, who it is shared with, deleting it. */
function managePanel(entry: api.ExperimentEntry): HTMLElement {
  const name = h("input", {
    type: "text",
    value: entry.name,
    "aria-label": "New name",
    required: true,
    spellcheck: "false",
  });
  const rename = h("form", { class: "rename" }, name, h("button", { type: "submit" }, "Rename"));
  rename.addEventListener("submit", (event) => {
    event.preventDefault();
    const wanted = name.value.trim();
    if (!wanted || wanted === entry.name) return;
    void act(`Renamed ${entry.name} to ${wanted}.`, () => api.rename(entry.id, wanted)).then((done) => {
      if (done && open?.id === entry.id) open = { id: entry.id, panel: managePanel({ ...entry, name: wanted }) };
      render();
    });
  });

  const isPublic = h("input", { type: "checkbox", class: "public-toggle", checked: entry.public });
  isPublic.addEventListener("change", () => {
    const flag = isPublic.checked;
    void act(`${entry.name} is ${flag ? "public" : "private"} now.`, () => api.setPublic(entry.id, flag));
  });

  const shares = h("ul", { class: "shares" }, h("li", { class: "empty" }, "Loading…"));
  const owner = h("p", { class: "owner" });
  const user = h("input", {
    type: "text",
    class: "share-user",
    placeholder: "User name",
    "aria-label": "User to share with",
    required: true,
    spellcheck: "false",
  });
  const role = h(
    "select",
    { class: "share-role", "aria-label": "Role" },
    ...ROLES.map((value) => h("option", { value }, value)),
  );
  const share = h("form", { class: "share" }, user, role, h("button", { type: "submit" }, "Share"));
  share.addEventListener("submit", (event) => {
    event.preventDefault();
    const who = user.value.trim();
    const what = role.value as api.Role;
    void act(`Shared ${entry.name} with ${who} (${what}).`, () => api.share(entry.id, who, what)).then((done) => {
      if (done) user.value = "";
      void showAccess();
    });
  });

  async function showAccess(): Promise<void> {
    let found: api.Access;
    try {
      found = await api.access(entry.id);
    } catch (failure) {
      shares.replaceChildren(h("li", { class: "error" }, `Could not read who has access: ${String(failure)}`));
      return;
    }
    owner.replaceChildren(found.owner === null ? "No owner." : "Owner: ", found.owner ?? "");
    isPublic.checked = found.public;
    shares.replaceChildren(
      ...(found.shares.length === 0 ? [h("li", { class: "empty" }, "Shared with nobody yet.")] : []),
      ...found.shares.map((grant) => {
        const remove = h("button", {
          type: "button",
          class: "remove",
          "aria-label": `Stop sharing with ${grant.user}`,
        });
        remove.textContent = "Remove";
        remove.addEventListener("click", () => {
          void act(`${grant.user} no longer has access to ${entry.name}.`, () =>
            api.share(entry.id, grant.user, null),
          ).then(() => showAccess());
        });
        return h(
          "li",
          { "data-user": grant.user },
          h("span", { class: "share-name" }, grant.user),
          h("span", { class: `badge role-${grant.role}` }, grant.role),
          remove,
        );
      }),
    );
  }
  void showAccess();

  const confirmation = h("span", { class: "confirm", hidden: true });
  const remove = h("button", { type: "button", class: "danger delete" }, "Delete…");
  remove.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "danger confirm-delete" }, "Delete");
    const no = h("button", { type: "button" }, "Cancel");
    yes.addEventListener("click", () => {
      yes.disabled = true;
      void act(`Deleted ${entry.name}.`, async () => {
        await api.deleteExperiment(entry.id);
        open = null;
      });
    });
    no.addEventListener("click", () => {
      confirmation.hidden = true;
      remove.hidden = false;
    });
    confirmation.replaceChildren(`Delete ${entry.name} with all its runs and data? This cannot be undone. `, yes, no);
    confirmation.hidden = false;
    remove.hidden = true;
    no.focus();
  });

  return h(
    "div",
    { class: "manage-panel", "aria-label": `Manage ${entry.name}`, role: "group" },
    h("section", {}, h("h3", {}, "Name"), rename),
    h(
      "section",
      {},
      h("h3", {}, "Access"),
      h("label", { class: "check" }, isPublic, "Public: anyone with the link may read it, without signing in"),
      owner,
      shares,
      share,
    ),
    h("section", {}, h("h3", {}, "Delete"), remove, confirmation),
  );
}

async function load(): Promise<void> {
  entries = await api.experiments();
  if (open && !entries.some((entry) => entry.id === open!.id)) open = null;
  render();
}

/** Shows the experiments page to `found` (who is signed in), `signIn` being the way in from its header. */
export async function start(found: api.Me, signIn: () => void): Promise<void> {
  me = found;
  create.hidden = !(me.auth && me.user !== null);
  table.classList.toggle("open-app", !me.auth);
  document.body.replaceChildren(
    header(),
    unreachableBanner,
    h(
      "main",
      { class: "experiments-page" },
      h(
        "div",
        { class: "toolbar" },
        h("h2", {}, "Experiments"),
        count,
        search,
        h("label", { class: "field" }, "Sort by ", sort),
        create,
      ),
      notice,
      table,
      empty,
    ),
  );
  showAccount(me, signIn);
  try {
    await load();
  } catch (failure) {
    say(`Could not list the experiments: ${String(failure)}`, { error: true });
  }
}
