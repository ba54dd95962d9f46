// Whether the server answers. api.ts reports what its requests meet: one that reached no server (a network error,
// or a proxy's 502 or 504) marks the server unreachable, and from then on a probe asks every second until it answers
// again. Idempotent requests made meanwhile wait for that answer instead of failing, so that no page mistakes an
// absent server for absent data; listeners hear both changes (the banner, the dashboards' refetch).

import { atRoot } from "./place";

const PROBE_MS = 1000;
/** A proxy's answers when the server behind it does not answer. */
export const GATEWAY_ERRORS: ReadonlySet<number> = new Set([502, 504]);

type Listener = (reachable: boolean) => void;

const listeners = new Set<Listener>();
let reachable = true;
let since = 0;
// Resolves when the server answers again; null while it does.
let back: { promise: Promise<void>; resolve: () => void } | null = null;

export function isReachable(): boolean {
  return reachable;
}

/** When the server stopped answering (a Date.now() time); meaningful while it is unreachable. */
export function unreachableSince(): number {
  return since;
}

/** Adds a listener of the changes; the function returned removes it. */
export function onChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Resolves at once while the server answers, else when it answers again. */
export function whenBack(): Promise<void> {
  return back?.promise ?? Promise.resolve();
}

/** A request reached no server: the probe asks until one answers. */
export function lost(): void {
  if (!reachable) return;
  reachable = false;
  since = Date.now();
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  back = { promise, resolve };
  tell();
  probeLater();
}

/** An answer came (whatever its status): the server is there. */
export function reached(): void {
  if (reachable) return;
  reachable = true;
  back?.resolve();
  back = null;
  tell();
}

/** Something hints that the server may be gone (the live stream broke): asks now. */
export async function check(): Promise<void> {
  if (await answers()) reached();
  else lost();
}

function tell(): void {
  for (const listener of [...listeners]) listener(reachable);
}

function probeLater(): void {
  window.setTimeout(() => {
    if (reachable) return;
    void answers().then((answered) => (answered ? reached() : probeLater()));
  }, PROBE_MS);
}

/** Whether the server answers: its /healthz, which asks nothing of the store and needs no sign-in. */
async function answers(): Promise<boolean> {
  try {
    const response = await fetch(atRoot("healthz"), { cache: "no-store" });
    return !GATEWAY_ERRORS.has(response.status);
  } catch {
    return false;
  }
}
