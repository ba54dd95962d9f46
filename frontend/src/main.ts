// The page: a header (dashboards, ingest progress, theme), the run selector, and the dashboard shown. New data is
// picked up while training runs: when ingest reports new points, runs, tags and the charts in view are fetched again.

import "uplot/dist/uPlot.min.css";
import "./style.css";
import * as api from "./api";
import { assign } from "./colors";
import { formatCount, h } from "./dom";
import * as runs from "./runs";
import { customScalars } from "./custom_scalars";
import { embeddings } from "./embeddings";
import { exceptions } from "./exceptions";
import { graphs } from "./graphs";
import { hparams } from "./hparams";
import * as media from "./media";
import * as scalars from "./scalars";
import { state, subscribe, update } from "./state";

const POLL_MS = 2000;
const THEME_KEY = "trainboard.theme";

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
  customScalars,
  ...media.all,
  hparams,
  graphs,
  embeddings,
  exceptions,
];

const tabs = h("nav", { class: "tabs", role: "tablist", "aria-label": "Dashboards" });
const progressText = h("span", { id: "ingest-text" });
const progressBar = h("progress", { id: "ingest-bar", max: 1, value: 0, "aria-label": "Ingest progress" });
const themeButton = h("button", { type: "button", id: "theme", "aria-label": "Switch between dark and light theme" });
const title = h("h1", {}, "trainboard");
const main = h("main", { id: "dashboard" });

document.body.append(
  h(
    "header",
    {},
    title,
    tabs,
    h("div", { class: "ingest", id: "ingest", role: "status" }, progressBar, progressText),
    themeButton,
  ),
  h("div", { class: "body" }, runs.element, main),
);

function applyTheme(theme: string): void {
  document.documentElement.dataset.theme = theme;
  themeButton.textContent = theme === "dark" ? "Light theme" : "Dark theme";
}
const storedTheme = localStorage.getItem(THEME_KEY);
applyTheme(storedTheme ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
themeButton.addEventListener("click", () => {
  const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
  localStorage.setItem(THEME_KEY, next);
  applyTheme(next);
  // Charts paint with the theme's colours when drawn: the one shown is drawn again (the others are when shown).
  if (current().id === "scalars") scalars.redrawAll();
  else void current().refresh();
});

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

// Points ingest had read at the last look; null before the first.
let lastPoints: number | null = null;

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
    const progress = await api.progress();
    const fraction = progress.bytes_total ? progress.bytes_read / progress.bytes_total : progress.done ? 1 : 0;
    progressBar.value = progress.done ? 1 : fraction;
    progressText.textContent = progress.done
      ? `${formatCount(progress.files_done)}/${formatCount(progress.files_total)} files read, ` +
        `${formatCount(progress.points)} new points`
      : `loading: ${formatCount(progress.files_done)}/${formatCount(progress.files_total)} files, ` +
        `${formatCount(progress.points)} points`;
    document.body.dataset.ingest = progress.done ? "done" : "loading";
    const changed = lastPoints !== null && progress.points !== lastPoints;
    lastPoints = progress.points;
    if (changed) await refreshAll();
  } catch (error) {
    progressText.textContent = `server unreachable (${String(error).slice(0, 80)})`;
  } finally {
    setTimeout(() => void poll(), POLL_MS);
  }
}

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

async function start(): Promise<void> {
  scalars.mount();
  await Promise.all([showTitle(), refreshAll(), poll()]);
}

void start();
