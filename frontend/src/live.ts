// Live updates pushed by the server: an EventSource on data/trainboard/events, which sends the experiment's ingest
// progress and data generation whenever they move. Where the stream fails (an old proxy that buffers it, a server
// without the route, too many streams open), `fallback` takes over: the dashboards poll as before. It is told whether
// it comes late (after 5 s of silence): the data may have changed unseen since. A stream that worked and broke may
// mean the server is gone: `connection` is asked, and a new stream is opened once the server answers.

import type { IngestProgress } from "./api";
import * as connection from "./connection";

// A stream that says nothing this long after it opened is taken as buffered (the server sends at once).
const FIRST_EVENT_MS = 5000;

export function follow(onProgress: (progress: IngestProgress) => void, fallback: (late: boolean) => void): void {
  if (typeof EventSource === "undefined") return fallback(false);
  const source = new EventSource("data/trainboard/events");
  let heard = false;
  let given = false;
  const giveUp = (late: boolean) => {
    source.close();
    if (!given) {
      given = true;
      fallback(late);
    }
  };
  const silence = setTimeout(() => heard || giveUp(true), FIRST_EVENT_MS);
  source.addEventListener("progress", (event) => {
    heard = true;
    clearTimeout(silence);
    onProgress(JSON.parse((event as MessageEvent<string>).data) as IngestProgress);
  });
  source.onerror = () => {
    // Before the first event: poll instead.
    if (!heard) return giveUp(false);
    // The browser reconnects by itself, or gives up (CLOSED): then a new stream once the server answers.
    const asked = connection.check();
    if (source.readyState === EventSource.CLOSED) {
      given = true;
      void asked.then(connection.whenBack).then(() => follow(onProgress, fallback));
    }
  };
}
