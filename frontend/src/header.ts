// The header every page has: the title, what the page adds (the dashboards' tabs), the way to the experiments, who
// is signed in, and the theme; below it, on the pages that show data, the banner that says the server is unreachable.
// A theme change is announced as "trainboard:theme" for what paints with its colours.

import * as api from "./api";
import * as connection from "./connection";
import { h } from "./dom";

const THEME_KEY = "trainboard.theme";

export const title = h("h1", {}, "trainboard");
/** The experiment shown, after the title. */
export const experimentName = h("span", { class: "experiment-name", id: "experiment-name" });
const experimentsLink = h("a", { class: "button", id: "experiments-link", href: "./", hidden: true }, "Experiments");
const account = h("div", { class: "account", id: "account" });
const themeButton = h("button", { type: "button", id: "theme", "aria-label": "Switch between dark and light theme" });

/** While the server does not answer: since when, and that the page comes back by itself. */
export const unreachableBanner = h("div", {
  class: "banner unreachable",
  id: "unreachable",
  role: "alert",
  hidden: true,
});
connection.onChange((reachable) => {
  unreachableBanner.hidden = reachable;
  if (!reachable) {
    const since = new Date(connection.unreachableSince()).toLocaleTimeString();
    unreachableBanner.textContent =
      `The server is unreachable (since ${since}). Asking again every second: ` +
      "the page fetches its data again as soon as it answers.";
  }
});

/** The header with the page's own `parts` between the title and the links at the right. */
export function header(...parts: Node[]): HTMLElement {
  return h(
    "header",
    {},
    title,
    experimentName,
    ...parts,
    h("div", { class: "header-end" }, experimentsLink, account, themeButton),
  );
}

export function showExperimentsLink(path: string): void {
  experimentsLink.href = path;
  experimentsLink.hidden = false;
}

/** Who is signed in and a way out; without a user on an app with accounts, a way in (`signIn`). */
export function showAccount(me: api.Me, signIn: () => void): void {
  if (!me.auth) {
    account.replaceChildren();
  } else if (me.user === null) {
    account.replaceChildren(h("button", { type: "button", id: "sign-in", onclick: () => signIn() }, "Sign in"));
  } else {
    const signOut = h("button", { type: "button", id: "sign-out" }, "Sign out");
    signOut.addEventListener("click", () => {
      signOut.disabled = true;
      // Signed out, the same page shows the sign-in page (or stays, for a public experiment).
      void api.signOut().finally(() => location.reload());
    });
    account.replaceChildren(
      h("span", { class: "user", id: "user", title: `Signed in as ${me.user}` }, me.user),
      signOut,
    );
  }
}

function applyTheme(theme: string): void {
  document.documentElement.dataset.theme = theme;
  themeButton.textContent = theme === "dark" ? "Light theme" : "Dark theme";
}

applyTheme(localStorage.getItem(THEME_KEY) ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
themeButton.addEventListener("click", () => {
  const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
  localStorage.setItem(THEME_KEY, next);
  applyTheme(next);
  window.dispatchEvent(new Event("trainboard:theme"));
});
