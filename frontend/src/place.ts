// Where the page is: the app's root (its --path_prefix), the experiment and the pin its path names, and what the
// server said of it. An experiment's API is asked relative to the page, so the same code serves /,
// /experiment/<id>/ and /experiment/<id>/at/<pin>/; what concerns the whole app (sign-in, the experiment list) is
// asked at the root.

const PATH = /^(.*\/)experiment\/([^/]+)\/(?:at\/([^/]+)\/)?(?:index\.html)?$/;
const found = PATH.exec(location.pathname);

/** The app's root path, ending in "/". */
export const root = found ? found[1]! : location.pathname.replace(/[^/]*$/, "");
/** The experiment the path names; null at the root (the app's default experiment, if it has one). */
export const experiment = found ? decodeURIComponent(found[2]!) : null;
export const pin = found?.[3] ? decodeURIComponent(found[3]) : null;

/** Whether this request may read an experiment here: the server empties the page's meta tag when the experiment
 * does not exist, the app has no default one at its root, or the user is not signed in or has no role on it. */
export const readable =
  document.querySelector('meta[name="trainboard-experiment"]')?.getAttribute("content") === "readable";

/** The experiments page was asked for at the root of an app that shows its default experiment there. */
export const experimentsAsked = new URLSearchParams(location.search).has("experiments");

/** A path of the app (no leading slash) as a URL path. */
export function atRoot(path: string): string {
  return root + path;
}

/** The path of an experiment's dashboards, live or pinned. */
export function experimentPath(id: string, pinId: string | null = null): string {
  const at = pinId === null ? "" : `at/${encodeURIComponent(pinId)}/`;
  return atRoot(`experiment/${encodeURIComponent(id)}/${at}`);
}

/** The experiments page: the root, unless the root shows the app's default experiment. */
export function experimentsPath(hasDefault: boolean): string {
  return hasDefault ? `${root}?experiments` : root;
}

/** A path as the full URL to share. */
export function absolute(path: string): string {
  return new URL(path, location.href).href;
}
