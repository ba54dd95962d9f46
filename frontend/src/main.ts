// What the page shows: an experiment's dashboards where the request may read one (at /experiment/<id>/, pinned at
// /experiment/<id>/at/<pin>/, or at / when the app has a default experiment); else the sign-in page to a visitor of
// an app with accounts, and the experiments page to whoever is signed in (or to all, on an app without accounts).

import "uplot/dist/uPlot.min.css";
import "./style.css";
import * as api from "./api";
import * as dashboards from "./dashboards";
import { h } from "./dom";
import * as experiments from "./experiments";
import { header, showAccount } from "./header";
import * as place from "./place";
import * as signin from "./signin";

const nobody: api.Me = { auth: false, user: null };

function me(): Promise<api.Me> {
  return api.me().catch(() => nobody);
}

/** No experiment here that the signed-in user may read: it does not exist, or it is not shared with them. */
function missing(found: api.Me): void {
  document.body.replaceChildren(
    header(),
    h(
      "main",
      { class: "missing", id: "missing" },
      h("h2", {}, "No experiment here"),
      h(
        "p",
        {},
        "There is no experiment with id ",
        h("code", {}, place.experiment ?? ""),
        place.pin === null ? "" : " pinned as ",
        place.pin === null ? "" : h("code", {}, place.pin),
        found.user === null ? "." : `, or it is not shared with ${found.user}.`,
      ),
      h("p", {}, h("a", { href: place.root }, "All experiments")),
    ),
  );
  showAccount(found, signin.show);
}

async function start(): Promise<void> {
  const asked = place.experiment === null && place.experimentsAsked;
  if (place.readable && !asked) {
    await dashboards.start(me(), signin.show);
    return;
  }
  const found = await me();
  if (found.auth && found.user === null) signin.show();
  else if (place.experiment !== null) missing(found);
  else await experiments.start(found, signin.show);
}

void start();
