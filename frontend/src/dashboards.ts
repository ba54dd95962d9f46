// The dashboards of one experiment: a header (dashboards, ingest progress), the run selector, and the dashboard shown.
// New data is picked up while training runs: when ingest reports new points, or the experiment's data changed
// (another process's ingest, an upload), runs, tags and the charts in view are fetched again. A pinned view (the
// experiment's data as of a moment, at /experiment/<id>/at/<pin>/) never changes: it does not poll, and says so.

import * as api from "./api";
import { assign } from "./colors";
import { formatCount, formatDate, h } from "./dom";
import { follow } from "./live";
import { experimentName, header, showAccount, showExperimentsLink, title } from "./header";
import * as place from "./place";
import * as runs from "./runs";
import { customScalars } from "./custom_scalars";
import { embeddings } from "./embeddings";
import { exceptions } from "./exceptions";
import { graphs } from "./graphs";
import { hparams } from "./hparams";
import * as media from "./media";
import { prCurves } from "./pr_curves";
import * as scalars from "./scalars";
import { state, subscribe, update } from "./state";
import { timeSeries } from "./timeseries";

const POLL_MS = 2000;

interface Dashboard {
  id: string;
  title: string;
  /** The plugin whose presence in /data/plugins_listing shows the tab. */
  plugin: string;
  element: HTMLElement;
  refresh(): Promise<void>;
  onState(changed: Set<string>): void;
  /** Whether its data is there when its plugin is not listed (data that only TS-VIS's API lists). */
  available?(): Promise<boolean>;
  /** Whether it picks its run itself: the run list, which would select nothing, is hidden. */
  ownRuns?: boolean;
}

const dashboards: Dashboard[] = [
  {
    id: "scalars",
    title: "Scalars",
    plugin: "scalars",
    element: scalars.element,
    refresh: scalars.refresh,
    onState: (changed) => scalars.onState(changed as Set<keyof typeof state>),
  },
  timeSeries,
  customScalars,
  ...media.all,
  prCurves,
  hparams,
  graphs,
  embeddings,
  exceptions,
];

const tabs = h("nav", { class: "tabs", role: "tablist", "aria-label": "Dashboards" });
const progressText = h("span", { id: "ingest-text" });
const progressBar = h("progress", { id: "ingest-bar", max: 1, value: 0, "aria-label": "Ingest progress" });
const ingest = h("div", { class: "ingest", id: "ingest", role: "status" }, progressBar, progressText);
const main = h("main", { id: "dashboard" });

let enabled: string[] = ["scalars"];

function current(): Dashboard {
  return (
    dashboards.find((dashboard) => dashboard.id === state.dashboard && enabled.includes(dashboard.plugin)) ??
    dashboards.find((dashboard) => enabled.includes(dashboard.plugin)) ??
    dashboards[0]!
  );
}

function renderTabs(): void {
  const shown = current();
  tabs.replaceChildren(
    ...dashboards
      .filter((dashboard) => enabled.includes(dashboard.plugin))
      .map((dashboard) => {
        const selected = dashboard === shown;
        const tab = h(
          "button",
          {
            type: "button",
            role: "tab",
            id: `tab-${dashboard.id}`,
            "aria-selected": selected ? "true" : "false",
            tabindex: selected ? 0 : -1,
          },
          dashboard.title,
        );
        tab.addEventListener("click", () => update({ dashboard: dashboard.id }));
        return tab;
      }),
  );
  if (main.firstChild !== shown.element) main.replaceChildren(shown.element);
  runs.element.hidden = shown.ownRuns === true;
}

tabs.addEventListener("keydown", (event) => {
  const buttons = [...tabs.querySelectorAll("button")];
  const index = buttons.findIndex((button) => button === document.activeElement);
  const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
  if (!step || index < 0) return;
  const next = buttons[(index + step + buttons.length) % buttons.length]!;
  next.click();
  next.focus();
});

// What ingest had read and the data's generation at the last look; null before the first.
let lastSeen: string | null = null;

async function refreshAll(): Promise<void> {
  const [runList, listing] = await Promise.all([
    api.runs(),
    api.pluginsListing(),
    state.dashboard === "scalars" ? scalars.prefetch() : null,
  ]);
  runList.sort();
  assign(runList);
  runs.setRuns(runList);
  enabled = dashboards
    .filter((dashboard) => listing[dashboard.plugin]?.enabled || dashboard.plugin === "scalars")
    .map((dashboard) => dashboard.plugin);
  renderTabs();
  const shown = current();
  const refreshed = shown.refresh();
  // Dashboards with data the listing does not see (graphs of structure graph files alone) are asked for meanwhile.
  const more = await Promise.all(
    dashboards.map(async (dashboard) => !enabled.includes(dashboard.plugin) && (await dashboard.available?.())),
  );
  if (more.some(Boolean)) {
    enabled = dashboards
      .filter((dashboard, index) => enabled.includes(dashboard.plugin) || more[index])
      .map((dashboard) => dashboard.plugin);
    renderTabs();
  }
  await refreshed;
  if (current() !== shown) await current().refresh();
}

async function poll(): Promise<void> {
  try {
    await showProgress(await api.progress());
  } catch (error) {
    progressText.textContent = `server unreachable (${String(error).slice(0, 80)})`;
  } finally {
    setTimeout(() => void poll(), POLL_MS);
  }
}

/** Shows how far ingest has come; fetches again what changed when the data did. */
async function showProgress(progress: api.IngestProgress): Promise<void> {
  const fraction = progress.bytes_total ? progress.bytes_read / progress.bytes_total : progress.done ? 1 : 0;
  progressBar.value = progress.done ? 1 : fraction;
  // An experiment this process does not ingest (another process or an upload writes it) has no files to count.
  const counted = !(progress.done && progress.files_total === 0);
  progressBar.hidden = !counted;
  progressText.textContent = !counted
    ? ""
    : progress.done
      ? `${formatCount(progress.files_done)}/${formatCount(progress.files_total)} files read, ` +
        `${formatCount(progress.points)} new points`
      : `loading: ${formatCount(progress.files_done)}/${formatCount(progress.files_total)} files, ` +
        `${formatCount(progress.points)} points`;
  document.body.dataset.ingest = progress.done ? "done" : "loading";
  const seen = `${progress.points} ${progress.generation ?? ""}`;
  const changed = lastSeen !== null && seen !== lastSeen;
  lastSeen = seen;
  if (changed) await refreshAfterChange();
}

// The refresh that a change of the data started, and whether another change came while it ran.
let refreshing: Promise<void> | null = null;
let changedAgain = false;

/** Fetches again what changed, one refresh at a time: pushed events can come while a refresh runs, and two at once
 * could draw the older answer last. A change during a refresh makes one more refresh after it. */
async function refreshAfterChange(): Promise<void> {
  if (refreshing) {
    changedAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      changedAgain = false;
      await refreshAll();
    } while (changedAgain);
  })().finally(() => (refreshing = null));
  return refreshing;
}

/** The dashboards follow the view's state, run colours and the theme (once shown: other pages have no charts). */
function listen(): void {
  subscribe((_state, changed) => {
    if (changed.has("runs") || changed.has("runFilter")) runs.render();
    if (changed.has("dashboard")) {
      renderTabs();
      void current().refresh();
      return;
    }
    current().onState(changed as Set<string>);
  });
  window.addEventListener("trainboard:colors", () => {
    runs.render();
    scalars.redrawAll();
  });
  window.addEventListener("trainboard:theme", () => {
    // Charts paint with the theme's colours when drawn: the one shown is drawn again (the others are when shown).
    if (current().id === "scalars") scalars.redrawAll();
    else void current().refresh();
  });
}

async function showTitle(): Promise<void> {
  try {
    const environment = await api.environment();
    if (environment.window_title) {
      title.textContent = environment.window_title;
      document.title = environment.window_title;
    }
  } catch {
    // The title stays trainboard's.
  }
}

/** The banner of a pinned view: what it shows, and the way to the live data (the same view, unpinned). */
function pinnedBanner(experiment: string, pin: string): HTMLElement {
  const live = h("a", { id: "view-live", href: place.experimentPath(experiment) + location.hash }, "view live");
  // The view's state (dashboard, runs, smoothing) goes along when the link is followed.
  live.addEventListener("click", () => (live.href = place.experimentPath(experiment) + location.hash));
  const when = h("span", { id: "pinned-at" }, "Pinned");
  void api.pinInfo(experiment, pin).then(
    (info) => {
      when.textContent = `Pinned at ${formatDate(info.created)}`;
      when.title = new Date(info.created * 1000).toString();
    },
    () => undefined,
  );
  return h(
    "div",
    { class: "banner pinned", id: "pinned-banner", role: "note" },
    when,
    ": data written later is not shown. ",
    live,
  );
}

/** The experiments link, and the experiment's name, from the app's list (which a signed-in user may read). */
async function showPlace(me: api.Me): Promise<void> {
  if (me.auth && me.user === null) return;
  const listed = await api.experiments();
  const shown = listed.find((entry) => (place.experiment === null ? entry.default : entry.id === place.experiment));
  if (shown && place.experiment !== null) {
    experimentName.textContent = shown.name;
    experimentName.title = shown.description || shown.name;
    if (document.title === "trainboard") document.title = `${shown.name} · trainboard`;
  }
  if (place.experiment !== null || listed.length > 1) {
    showExperimentsLink(place.experimentsPath(listed.some((entry) => entry.default)));
  }
}

/** Shows the dashboards of the page's experiment; `me`, once known, in the header. */
export async function start(me: Promise<api.Me>, signIn: () => void): Promise<void> {
  const pinned = place.experiment !== null && place.pin !== null;
  document.body.replaceChildren(
    header(tabs, ...(pinned ? [] : [ingest])),
    ...(pinned ? [pinnedBanner(place.experiment!, place.pin!)] : []),
    h("div", { class: "body" }, runs.element, main),
  );
  void me
    .then((found) => {
      showAccount(found, signIn);
      return showPlace(found);
    })
    .catch(() => undefined); // no name and no link: the dashboards work all the same
  listen();
  scalars.mount();
  // Pushed by the server (server-sent events), else polled.
  if (!pinned)
    follow(
      (progress) => void showProgress(progress),
      // Late: what changed while the stream said nothing is fetched now (polling shows only later changes).
      (late) => {
        if (late) void refreshAfterChange();
        void poll();
      },
    );
  await Promise.all([showTitle(), refreshAll()]);
}
