// The run filter box's two modes: a filter of the run filter language (`lr < 0.01 and acc > 0.9`, matched by the
// server on hyperparameters and final metric values), or, for text that does not parse as one, a regular expression
// on run names as before. The server says which: it answers a filter with the runs it keeps, and anything else with
// a 400 that says where the text stopped being a filter.

import { ApiError, getJson } from "./api";
import { regex, regexProblem } from "./regex";
import { announce, state } from "./state";

export type Mode = "all" | "filter" | "regex" | "pending";

interface Answer {
  runs: { run: string }[];
}

const ASK_AFTER_MS = 250;

/** The last answer: for which text, the runs kept (null: not a filter), and why it is not one. */
let answered: { text: string; kept: Set<string> | null; reason: string } = { text: "", kept: null, reason: "" };
let timer: number | undefined;
let asking = 0;

export function mode(): Mode {
  if (!state.runFilter.trim()) return "all";
  if (answered.text !== state.runFilter) return "pending";
  return answered.kept !== null ? "filter" : "regex";
}

/** Whether a run passes the filter box: the server's answer for a filter, else the regular expression (while the
 * server is asked, the previous filter's answer stands if there was one). */
export function matcher(): (run: string) => boolean {
  if (!state.runFilter.trim()) return () => true;
  const kept = answered.kept;
  if (kept !== null && (answered.text === state.runFilter || mode() === "pending")) return (run) => kept.has(run);
  const pattern = regex(state.runFilter);
  return pattern ? (run) => pattern.test(run) : () => true;
}

/** What the box says under it: the mode, and the problem when the text is neither a filter nor a regex. */
export function describe(): { mode: Mode; label: string; problem: string } {
  const current = mode();
  const problem = current === "regex" ? (regexProblem(state.runFilter) ?? "") : "";
  const label = {
    all: "",
    pending: "…",
    filter: "Filter on hparams & metrics",
    regex: "Regex on run names",
  }[current];
  return { mode: current, label, problem: problem ? `${problem}; not a filter either: ${answered.reason}` : "" };
}

/** Asks the server about the box's text (after typing pauses), or again for new data (`now`). */
export function ask(now = false): void {
  window.clearTimeout(timer);
  const text = state.runFilter;
  if (!text.trim()) {
    answered = { text, kept: null, reason: "" };
    return;
  }
  timer = window.setTimeout(() => void fetchAnswer(text), now ? 0 : ASK_AFTER_MS);
}

async function fetchAnswer(text: string): Promise<void> {
  const ticket = ++asking;
  let next: typeof answered;
  try {
    const answer = await getJson<Answer>("data/trainboard/runs", { filter: text });
    next = { text, kept: new Set(answer.runs.map((entry) => entry.run)), reason: "" };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) return; // the server is away: nothing changes
    next = { text, kept: null, reason: error.message.replace(/^[\s\S]*?Invalid argument: (filter: )?/, "") };
  }
  if (ticket !== asking) return; // a newer question is on its way
  answered = next;
  announce(["runFilter"]);
}
