// trainboard's HTTP API (TensorBoard's /data routes), by relative URL so that --path_prefix works: an experiment's
// routes relative to the page, the app's (sign-in, the experiment list and its admin routes) at its root. Every
// request of the page goes through `send`: errors become ApiErrors with the server's message, and a request that
// reaches no server is reported to `connection`. A read is retried after a blip, and while the server stays away it
// waits for its return rather than fail (a failed read would show as missing data); a write fails at once.

import * as connection from "./connection";
import { atRoot, experimentPath } from "./place";

export interface IngestProgress {
  files_total: number;
  files_done: number;
  bytes_total: number;
  bytes_read: number;
  points: number;
  points_per_second: number;
  elapsed: number;
  passes: number;
  done: boolean;
  /** Changes whenever the experiment's data changes, whoever wrote it (this server's ingest, another process's, an
   * upload). */
  generation?: number;
}

export interface PluginListing {
  [plugin: string]: { enabled: boolean };
}

/** One scalar series in columns, as the charts use it. */
export interface ScalarSeries {
  wallTimes: Float64Array;
  steps: Float64Array;
  values: Float64Array;
}

export type TagInfo = Record<string, Record<string, { displayName?: string; description?: string }>>;

export type Role = "read" | "write" | "admin";

export interface Me {
  /** Whether the app has accounts; without them everyone may do everything and nobody signs in. */
  auth: boolean;
  user: string | null;
  /** Present (true) where the server signs users in with an identity provider: /auth/oidc/start. */
  sso?: boolean;
}

export interface ExperimentEntry {
  id: string;
  name: string;
  description: string;
  startTime: number;
  lastUpdate: number;
  runCount: number;
  default: boolean;
  /** The caller's role; null without accounts. */
  role: Role | null;
  public: boolean;
  /** Whether the caller owns it, and its owner's name (null without accounts, or ingested without an owner). */
  owned: boolean;
  owner: string | null;
}

export interface Access {
  owner: string | null;
  public: boolean;
  shares: { user: string; role: Role }[];
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

// A blip (a proxy reloading, a server restarting) is retried after these pauses before the server is called gone.
const RETRY_MS = [250, 1000];

/** Whether a request only reads: a GET, or a POST to TensorBoard's plugin routes (which never write; they take a POST
 * where the query would be too long for a URL). */
function reads(path: string, init: RequestInit): boolean {
  return init.method === undefined || path.startsWith("data/plugin/");
}

/** The answer to a request, whatever its status. `idempotent`: a read, which may be sent again. */
async function send(path: string, init: RequestInit = {}, idempotent = reads(path, init)): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    if (idempotent) await connection.whenBack();
    let response: Response | null = null;
    try {
      response = await fetch(path, init);
    } catch (error) {
      // fetch rejects with a TypeError when no answer came; anything else (an abort) is the caller's.
      if (!(error instanceof TypeError)) throw error;
    }
    if (response && !connection.GATEWAY_ERRORS.has(response.status)) {
      connection.reached();
      return response;
    }
    if (!idempotent) {
      void connection.check();
      throw new ApiError("The server is unreachable: the change may not have been made.");
    }
    const pause = RETRY_MS[attempt];
    if (pause === undefined) {
      connection.lost();
      attempt = -1;
    } else await new Promise((resolve) => window.setTimeout(resolve, pause));
  }
}

async function check(response: Response): Promise<Response> {
  if (response.ok) return response;
  const text = await response.text();
  let error = `${response.status} ${response.url}: ${text.slice(0, 200)}`;
  try {
    // trainboard's own routes answer {"ok": false, "error": "..."}: a message for the user.
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") error = body.error;
  } catch {
    // Not JSON: the status and the start of the text.
  }
  throw new ApiError(error, response.status);
}

function withQuery(path: string, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return query ? `${path}?${query}` : path;
}

export async function getJson<T>(path: string, params: Record<string, string> = {}): Promise<T> {
  const response = await check(await send(withQuery(path, params)));
  return (await response.json()) as T;
}

export async function getText(path: string, params: Record<string, string> = {}): Promise<string> {
  const response = await check(await send(withQuery(path, params)));
  return await response.text();
}

/** A POST of a form; `read`: it only asks (a query too long for a URL), so it is retried as a GET is. */
export async function postForm<T>(path: string, form: [string, string][], { read = false } = {}): Promise<T> {
  const body = new URLSearchParams(form);
  const init = { method: "POST", body };
  const response = await check(await send(path, init, read || reads(path, init)));
  return (await response.json()) as T;
}

/** A POST of JSON; `read`: it only asks, so it is retried as a GET is. */
export async function postJson<T>(path: string, body: unknown, { read = false } = {}): Promise<T> {
  const headers = { "Content-Type": "application/json" };
  const init = { method: "POST", headers, body: JSON.stringify(body) };
  const response = await check(await send(path, init, read || reads(path, init)));
  return (await response.json()) as T;
}

/** The data of a TS-VIS route's `{code, msg, data}` envelope, or its message as an error. */
export async function tsvisData<T>(route: string, params: Record<string, string> = {}): Promise<T> {
  const envelope = await getJson<{ code: number; msg: string; data: T }>(`api/${route}`, params);
  if (envelope.code !== 200) throw new ApiError(envelope.msg);
  return envelope.data;
}

let category: { at: number; answer: Promise<unknown> } | null = null;

/** TS-VIS's /api/getCategory; the dashboards that ask within a second of each other share one request. */
export function tsvisCategory<T>(): Promise<T> {
  const now = performance.now();
  if (!category || now - category.at > 1000) category = { at: now, answer: tsvisData<T>("getCategory") };
  return category.answer as Promise<T>;
}

export function url(path: string, params: Record<string, string>): string {
  return `${path}?${new URLSearchParams(params).toString()}`;
}

export const runs = (): Promise<string[]> => getJson<string[]>("data/runs");
export const progress = (): Promise<IngestProgress> => getJson<IngestProgress>("data/ingest_progress");
export const pluginsListing = (): Promise<PluginListing> => getJson<PluginListing>("data/plugins_listing");
export const environment = (): Promise<{ window_title?: string; data_location?: string }> =>
  getJson("data/environment");

// The app's routes: who is signed in, sessions, the experiments and their admin routes, pins.

export const me = (): Promise<Me> => getJson<Me>(atRoot("auth/me"));
export const signIn = (token: string): Promise<{ user: string }> => postJson(atRoot("auth/session"), { token });
export const signOut = (): Promise<unknown> => postJson(atRoot("auth/signout"), {});
export const experiments = (): Promise<ExperimentEntry[]> => getJson<ExperimentEntry[]>(atRoot("data/experiments"));
export const createExperiment = (name: string, description = ""): Promise<{ id: string }> =>
  postJson(atRoot("data/experiments"), { name, description });
export const access = (id: string): Promise<Access> => getJson<Access>(experimentPath(id) + "admin/access");
export const rename = (id: string, name: string): Promise<unknown> =>
  postJson(experimentPath(id) + "admin/rename", { name });
export const setPublic = (id: string, flag: boolean): Promise<unknown> =>
  postJson(experimentPath(id) + "admin/public", { public: flag });
/** Gives `user` the role on the experiment; null takes it away. */
export const share = (id: string, user: string, role: Role | null): Promise<unknown> =>
  postJson(experimentPath(id) + "admin/share", { user, role });
export const deleteExperiment = (id: string): Promise<unknown> => postJson(experimentPath(id) + "admin/delete", {});
/** Pins the experiment's data as it is now: its dashboards at /experiment/<id>/at/<pin>/ keep showing that. */
export const pin = (id: string): Promise<{ pin: string; created: number }> => postJson(experimentPath(id) + "pins", {});

/** When a pin was made. */
export const pinInfo = (id: string, pinId: string): Promise<{ pin: string; created: number }> =>
  getJson(experimentPath(id) + `pins/${encodeURIComponent(pinId)}`);

/** The URL of every point of these runs' series of a scalar tag, never downsampled, as the server writes it (CSV,
 * JSON or Parquet): the charts draw the downsampled series of scalarsMultirun. */
export function everyPointUrl(runs: string[], tag: string, format: "csv" | "json" | "parquet"): string {
  const query = new URLSearchParams([["tag", tag], ["format", format], ...runs.map((run) => ["run", run])]);
  return `data/trainboard/scalars?${query}`;
}

/** Every point of these runs' series of a scalar tag, by run (the server's JSON download: a list of columns). */
export async function wholeScalarSeries(runs: string[], tag: string): Promise<Map<string, ScalarSeries>> {
  const body = await getJson<{ run: string; step: number[]; wall_time: number[]; value: (number | string)[] }[]>(
    everyPointUrl(runs, tag, "json"),
  );
  return new Map(
    body.map((series) => [
      series.run,
      {
        wallTimes: Float64Array.from(series.wall_time),
        steps: Float64Array.from(series.step),
        values: Float64Array.from(series.value, Number),
      },
    ]),
  );
}

/** What the server can do: its download formats (Parquet needs pyarrow there) and whether its data can change. */
export interface Capabilities {
  downloads: string[];
  events: boolean;
}
let capabilities: Promise<Capabilities> | null = null;
export const serverCapabilities = (): Promise<Capabilities> =>
  (capabilities ??= getJson<Capabilities>("data/trainboard/capabilities").catch(() => ({
    downloads: [],
    events: false,
  })));

/** Every selected run's series of one scalar tag, in one request. */
export async function scalarsMultirun(tag: string, runs: string[]): Promise<Map<string, ScalarSeries>> {
  const form: [string, string][] = [["tag", tag], ...runs.map((run): [string, string] => ["runs", run])];
  const body = await postForm<Record<string, [number, number, number | string][]>>(
    "data/plugin/scalars/scalars_multirun",
    form,
  );
  const found = new Map<string, ScalarSeries>();
  for (const [run, rows] of Object.entries(body)) {
    const series = {
      wallTimes: new Float64Array(rows.length),
      steps: new Float64Array(rows.length),
      values: new Float64Array(rows.length),
    };
    rows.forEach(([wallTime, step, value], index) => {
      series.wallTimes[index] = wallTime;
      series.steps[index] = step;
      // Non-finite values come as "NaN", "Infinity" and "-Infinity", as TensorBoard sends them.
      series.values[index] = Number(value);
    });
    found.set(run, series);
  }
  return found;
}
