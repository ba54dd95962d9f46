// trainboard's HTTP API (TensorBoard's /data routes), by relative URL so that --path_prefix works.

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

export class ApiError extends Error {}

async function check(response: Response): Promise<Response> {
  if (!response.ok) throw new ApiError(`${response.status} ${response.url}: ${(await response.text()).slice(0, 200)}`);
  return response;
}

export async function getJson<T>(path: string, params: Record<string, string> = {}): Promise<T> {
  const query = new URLSearchParams(params).toString();
  const response = await check(await fetch(query ? `${path}?${query}` : path));
  return (await response.json()) as T;
}

export async function postForm<T>(path: string, form: [string, string][]): Promise<T> {
  const body = new URLSearchParams(form);
  const response = await check(await fetch(path, { method: "POST", body }));
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

/** One run's whole series of a scalar tag, never downsampled (TS-VIS's /api/scalar serves every point), for
 * downloads: the charts draw the downsampled series of scalarsMultirun. */
export async function wholeScalarSeries(run: string, tag: string): Promise<ScalarSeries> {
  const data = await tsvisData<Record<string, { wall_time: number; step: number; value: number | string }[]>>(
    "scalar",
    { run, tag },
  );
  const rows = data[tag] ?? [];
  return {
    wallTimes: Float64Array.from(rows, (row) => row.wall_time),
    steps: Float64Array.from(rows, (row) => row.step),
    values: Float64Array.from(rows, (row) => Number(row.value)),
  };
}

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
