// The run filter box's two modes: a filter of the run filter language (`lr < 0.01 and acc > 0.9`, matched by the
// server on hyperparameters and final metric values), or, for text that does not parse as one, a regular expression
// on run names as before. The server says which: it answers a filter with the runs it keeps, and anything else (asked
// with fallback=regex, so not as a 400) with where the text stopped being a filter.

import { getJson } from "./api";
import { regex, regexProblem } from "./regex";
import { announce, state } from "./state";

export type Mode = "all" | "filter" | "regex" | "pending";

interface Answer {
  mode: "filter" | "regex";
  runs: { run: string }[] | null;
  reason?: string;
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
  // While the server is asked, the text is taken as the regex it was before the language: its problem shows at once.
  const problem = current === "regex" || current === "pending" ? (regexProblem(state.runFilter) ?? "") : "";
  const either = current === "regex" ? `; not a filter either: ${answered.reason}` : "";
  const label = {
    all: "",
    pending: "…",
    filter: "Filter on hparams & metrics",
    regex: "Regex on run names",
  }[current];
  return { mode: current, label, problem: problem ? problem + either : "" };
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
  let answer: Answer;
  try {
    answer = await getJson<Answer>("data/trainboard/runs", { filter: text, fallback: "regex" });
  } catch {
    return; // the server is away: nothing changes
  }
  const next =
    answer.runs !== null
      ? { text, kept: new Set(answer.runs.map((entry) => entry.run)), reason: "" }
      : { text, kept: null, reason: (answer.reason ?? "").replace(/^filter: /, "") };
  if (ticket !== asking) return; // a newer question is on its way
  answered = next;
  announce(["runFilter"]);
}
