// Whether this page may write to its experiment (run metadata, saved views, derived metrics), known before any
// control is drawn so that a reader sees none rather than controls the server refuses: not on a pinned view; on a
// team server, only signed in with a role above read on the experiment (the experiments listing gives the role).

import { experiments, me } from "./api";
import * as place from "./place";

let answer: Promise<boolean> | null = null;

/** Asked of the server once per page. */
export const writable = (): Promise<boolean> => (answer ??= ask());

async function ask(): Promise<boolean> {
  if (place.pin !== null) return false;
  try {
    const who = await me();
    if (!who.auth) return true;
    if (who.user === null) return false;
    const found = await experiments();
    const entry = found.find((one) => (place.experiment === null ? one.default : one.id === place.experiment));
    return entry !== undefined && entry.role !== "read";
  } catch {
    return true; // no experiment list: a single logdir, which anyone may write to
  }
}
