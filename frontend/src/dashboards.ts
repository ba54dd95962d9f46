// The dashboards of one experiment: a header (the dashboards' tabs), the run selector, the dashboard shown, and the
// ingest progress in a status line of its own at the bottom. New data is picked up while training runs: when ingest
// reports new points, or the experiment's data changed (another process's ingest, an upload), runs, tags and the
// charts in view are fetched again; so they are when the server answers again after it was unreachable. A pinned
// view (the experiment's data as of a moment, at /experiment/<id>/at/<pin>/) never changes: it does not poll, and says
// so. The page opens on the first dashboard with data; an experiment without any data says where it looks and how to
// write some.

import * as api from "./api";
import { assign } from "./colors";
import * as connection from "./connection";
import { formatCount, formatDate, h } from "./dom";
import { follow } from "./live";
import { experimentName, header, showAccount, showExperimentsLink, title, unreachableBanner } from "./header";
import * as place from "./place";
import * as runs from "./runs";
import { customScalars } from "./custom_scalars";
import type { Dashboard } from "./dashboard";
import { embeddings } from "./embeddings";
import { exceptions } from "./exceptions";
import { graphs } from "./graphs";
import { hparams } from "./hparams";
import * as media from "./media";
import { prCurves } from "./pr_curves";
import * as scalars from "./scalars";
import { settle, state, subscribe, update } from "./state";
import { timeSeries } from "./timeseries";
import { TabStrip } from "./tabs";

const POLL_MS = 2000;

const mediaDashboard = (id: string): Dashboard => media.all.find((dashboard) => dashboard.id === id)!;

/** TensorBoard's order (but Scalars, trainboard's first, before Time Series), then trainboard's own dashboards. */
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
  mediaDashboard("images"),
  mediaDashboard("audio"),
  graphs,
  mediaDashboard("distributions"),
  mediaDashboard("histograms"),
  mediaDashboard("text"),
  prCurves,
  hparams,
  embeddings,
  exceptions,
];

const tabs = new TabStrip((id) => update({ dashboard: id }));
const progressText = h("span", { id: "ingest-text" });
const progressBar = h("progress", { id: "ingest-bar", max: 1, value: 0, "aria-label": "Ingest progress" });
const ingest = h("footer", { class: "ingest", id: "ingest", role: "status" }, progressBar, progressText);
const main = h("main", { id: "dashboard" });
const body = h("div", { class: "body" }, runs.element, main);

// The plugins with data; null until the first listing came.
let enabled: string[] | null = null;
// Whether the dashboards that the listing does not show (available()) have been asked.
let askedMore = false;
// Whether ingest has read every file once (a pinned view's data is all there).
let ingestDone = place.pin !== null;
let location_ = "";
// The dashboards whose data came at least once: the others, while the server is unreachable, say they wait for it.
const loaded = new Set<Dashboard>();

const withData = (): Dashboard[] => dashboards.filter((dashboard) => enabled?.includes(dashboard.plugin));

/** The dashboard the state asks for, if it has data; else the first with data when the URL names none. */
function current(): Dashboard | null {
  const shown = withData();
  if (state.dashboard === "") return shown[0] ?? null;
  return shown.find((dashboard) => dashboard.id === state.dashboard) ?? null;
}

// The dashboard whose onState hears the state's changes, and the way to stop that when it is left.
let entered: { dashboard: Dashboard; leave: () => void } | null = null;

function enter(dashboard: Dashboard | null): void {
  if (entered?.dashboard === dashboard) return;
  entered?.leave();
  entered = dashboard && {
    dashboard,
    leave: subscribe((_state, changed) => {
      if (!changed.has("dashboard")) dashboard.onState(changed as Set<string>);
    }),
  };
}

/** Shows the tabs and the dashboard asked for, or says why there is none. */
function render(): void {
  const shown = current();
  if (shown && state.dashboard === "") settle(shown.id);
  enter(shown);
  tabs.show(
    withData().map((dashboard) => ({ id: dashboard.id, title: dashboard.title })),
    shown?.id ?? null,
  );
  const notice = shown ? null : explain();
  const view = shown ? (waiting(shown) ?? shown.element) : notice;
  if (view && main.firstChild !== view) main.replaceChildren(view);
  runs.element.hidden = !shown || shown.ownRuns === true;
}

/** Why no dashboard is shown: none has data, the one asked for has none, or there is no such dashboard; null while
 * that is not known yet. */
function explain(): HTMLElement | null {
  if (enabled === null) return null;
  const asked = dashboards.find((dashboard) => dashboard.id === state.dashboard);
  if (asked?.available && !askedMore) return null;
  const others = withData();
  if (others.length === 0) return emptyPage(asked);
  const links = others.map((dashboard) =>
    h("li", {}, h("a", { href: `#dashboard=${encodeURIComponent(dashboard.id)}` }, dashboard.title)),
  );
  const why = asked
    ? h("p", {}, `${asked.title} has no data in this experiment.`)
    : h("p", {}, "There is no dashboard named ", h("code", {}, state.dashboard), ".");
  return h(
    "section",
    { class: "page-note", id: asked ? "no-data" : "unknown-dashboard" },
    h("h2", {}, asked ? `No ${asked.title} data` : "Unknown dashboard"),
    why,
    h("p", {}, "The dashboards with data:"),
    h("ul", {}, ...links),
  );
}

/** An experiment without data: where trainboard looks, what it reads, and how to write it. */
function emptyPage(asked: Dashboard | undefined): HTMLElement {
  const where = location_ ? h("code", {}, location_) : "this experiment";
  const run = `${location_.replace(/\/$/, "") || "logs"}/run-1`;
  const snippet = [
    "# pip install tensorboard (or tensorboardX, then: from tensorboardX import SummaryWriter)",
    "from torch.utils.tensorboard import SummaryWriter",
    "",
    `writer = SummaryWriter(${JSON.stringify(run)})  # one folder per run`,
    "for step in range(100):",
    '    writer.add_scalar("train/loss", 1 / (step + 1), step)',
    "writer.close()",
  ].join("\n");
  return h(
    "section",
    { class: "page-note", id: "empty-logdir" },
    h("h2", {}, ingestDone ? "No data yet" : "Reading the data…"),
    state.dashboard === ""
      ? ""
      : h(
          "p",
          { id: "asked-dashboard" },
          asked
            ? `${asked.title} has no data here, and neither has any other dashboard.`
            : `There is no dashboard named ${state.dashboard}, and no data for any.`,
        ),
    h(
      "p",
      {},
      "trainboard shows the event files in ",
      where,
      " and the folders below it",
      ingestDone ? ", and has found none with data." : ".",
    ),
    h(
      "p",
      {},
      "It reads TensorBoard's event files (named ",
      h("code", {}, "events.out.tfevents.*"),
      "), each folder holding them being a run, as PyTorch's ",
      h("code", {}, "torch.utils.tensorboard"),
      ", tensorboardX, TensorFlow's ",
      h("code", {}, "tf.summary"),
      " and Keras's TensorBoard callback write them. For example:",
    ),
    h("pre", { class: "snippet" }, h("code", {}, snippet)),
    h("p", {}, "Runs appear here as their files are written: there is no need to reload the page."),
  );
}

/** While the server is unreachable, a dashboard never shown before says it waits for it (rather than stay blank). */
function waiting(dashboard: Dashboard): HTMLElement | null {
  if (connection.isReachable() || loaded.has(dashboard)) return null;
  return h(
    "section",
    { class: "page-note", id: "waiting" },
    h("p", {}, `${dashboard.title} is shown as soon as the server answers again.`),
  );
}

/** Refreshes the dashboard shown, and says once it has had its data. */
async function refreshShown(): Promise<void> {
  const shown = current();
  if (!shown) return;
  await shown.refresh();
  loaded.add(shown);
  if (current() === shown && main.firstChild !== shown.element) render();
}

// What ingest had read and the data's generation at the last look; null before the first.
let lastSeen: string | null = null;

async function refreshAll(): Promise<void> {
  // The scalars' tags are asked beside the runs, not waited for here: at 10,000 runs they take seconds, and the run
  // selector (the runs table) is drawn without them.
  if (state.dashboard === "" || state.dashboard === "scalars") void scalars.prefetch();
  const [runList, listing] = await Promise.all([api.runs(), api.pluginsListing()]);
  runList.sort();
  assign(runList);
  runs.setRuns(runList);
  const listed = dashboards
    .filter((dashboard) => listing[dashboard.plugin]?.enabled)
    .map((dashboard) => dashboard.plugin);
  // Dashboards with data that the listing does not show keep their tabs until asked again (no tab blinks away).
  enabled = [...listed, ...(enabled ?? []).filter((plugin) => !listed.includes(plugin))];
  render();
  const shown = current();
  const refreshed = refreshShown();
  // Dashboards with data the listing does not see (graphs of structure graph files alone) are asked for meanwhile.
  const more = await Promise.all(
    dashboards.map(async (dashboard) => !listed.includes(dashboard.plugin) && (await dashboard.available?.())),
  );
  askedMore = true;
  enabled = dashboards
    .filter((dashboard, index) => listed.includes(dashboard.plugin) || more[index])
    .map((dashboard) => dashboard.plugin);
  render();
  await refreshed;
  if (current() !== shown) await refreshShown();
}

async function poll(): Promise<void> {
  try {
    await showProgress(await api.progress());
  } catch (error) {
    // An answer that is an error (an unreachable server makes the request wait instead, and the banner says so).
    progressText.textContent = `ingest progress: ${String(error).slice(0, 80)}`;
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
  ingest.hidden = !counted;
  progressText.textContent = !counted
    ? ""
    : progress.done
      ? `${formatCount(progress.files_done)}/${formatCount(progress.files_total)} files read, ` +
        `${formatCount(progress.points)} new points`
      : `loading: ${formatCount(progress.files_done)}/${formatCount(progress.files_total)} files, ` +
        `${formatCount(progress.points)} points`;
  document.body.dataset.ingest = progress.done ? "done" : "loading";
  if (progress.done !== ingestDone) {
    ingestDone = progress.done;
    render();
  }
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

/** The page follows the view's state, run colours, the theme (once shown: other pages have no charts) and the
 * server's coming back. */
function listen(): void {
  subscribe((_state, changed) => {
    if (changed.has("runs") || changed.has("runFilter")) runs.render();
    if (changed.has("dashboard")) {
      render();
      void refreshShown();
    }
  });
  window.addEventListener("trainboard:colors", () => {
    runs.render();
    scalars.redrawAll();
  });
  window.addEventListener("trainboard:theme", () => {
    // Charts paint with the theme's colours when drawn: the one shown is drawn again (the others are when shown).
    if (current()?.id === "scalars") scalars.redrawAll();
    else void current()?.refresh();
  });
  connection.onChange((reachable) => {
    main.classList.toggle("unreachable", !reachable);
    render();
    // What changed while it was away is fetched again: runs, tabs, the dashboard shown.
    if (reachable) void refreshAfterChange();
  });
}

async function showTitle(): Promise<void> {
  try {
    const environment = await api.environment();
    location_ = environment.data_location ?? "";
    render();
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
    header(tabs.element),
    unreachableBanner,
    ...(pinned ? [pinnedBanner(place.experiment!, place.pin!)] : []),
    body,
    ...(pinned ? [] : [ingest]),
  );
  void me
    .then((found) => {
      showAccount(found, signIn);
      return showPlace(found);
    })
    .catch(() => undefined); // no name and no link: the dashboards work all the same
  listen();
  scalars.mount();
  // The run selector is drawn now: the runs table asks for its first page beside the listings, not after them.
  runs.render();
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
