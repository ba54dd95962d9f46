// Live updates pushed by the server: an EventSource on data/trainboard/events, which sends the experiment's ingest
// progress and data generation whenever they move. Where the stream fails (an old proxy that buffers it, a server
// without the route, too many streams open), `fallback` takes over: the dashboards poll as before.

import type { IngestProgress } from "./api";

// A stream that says nothing this long after it opened is taken as buffered (the server sends at once).
const FIRST_EVENT_MS = 5000;

export function follow(onProgress: (progress: IngestProgress) => void, fallback: () => void): void {
  if (typeof EventSource === "undefined") return fallback();
  const source = new EventSource("data/trainboard/events");
  let heard = false;
  let given = false;
  const giveUp = () => {
    source.close();
    if (!given) {
      given = true;
      fallback();
    }
  };
  const silence = setTimeout(() => heard || giveUp(), FIRST_EVENT_MS);
  source.addEventListener("progress", (event) => {
    heard = true;
    clearTimeout(silence);
    onProgress(JSON.parse((event as MessageEvent<string>).data) as IngestProgress);
  });
  // Before the first event, or once the browser stops reconnecting: poll instead.
  source.onerror = () => {
    if (!heard || source.readyState === EventSource.CLOSED) giveUp();
  };
}
