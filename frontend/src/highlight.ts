// The run highlighted on every chart of the page (the run list's hovered row): charts listen and draw its lines
// thicker, the others dimmed. A chart's own hover highlights its nearest line in that chart only.

type Listener = (run: string | null) => void;

let current: string | null = null;
const listeners = new Set<Listener>();

export function highlighted(): string | null {
  return current;
}

export function highlightRun(run: string | null): void {
  if (run === current) return;
  current = run;
  for (const listener of listeners) listener(run);
}

/** Calls `listener` on each change; the function returned stops it. */
export function onHighlight(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The event a chart sends (bubbling) when a click picks its run's line; the run list shows that run. */
export const PICK_RUN = "trainboard:pick-run";
