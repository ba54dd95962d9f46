// The run filter box: a filter of the run filter language (`lr < 0.01 and val/acc > 0.9`, matched by the server on
// hyperparameters and final metric values) or, with the regex mode switched on (the `.*` button, `runRegex` in the
// URL), a regular expression on run names. Typing never changes the mode, and never blanks the page: while the server
// is asked, or when the text is neither, the runs of the last good text stay shown and the problem is said, with
// its position, under the box.

import { getJson } from "./api";
import { problemOf, type FilterAnswer, type FilterProblem } from "./filter_problem";
import { regex, regexProblem } from "./regex";
import { announce, state, update } from "./state";

export type Mode = "all" | "filter" | "regex";

type Matcher = (run: string) => boolean;

const ASK_AFTER_MS = 200;
const everyRun: Matcher = () => true;

/** The server's last answer for a filter: for which text, the runs kept (null: the text is not a filter). */
let answered: { text: string; kept: Set<string> | null; problem: FilterProblem | null } = {
  text: "",
  kept: null,
  problem: null,
};
/** What the last good text (a filter the server answered, or a regex that compiled) kept: shown while the box's
 * text is pending or wrong. */
let lastGood: Matcher = everyRun;
let timer: number | undefined;
let asking = 0;
// A link from before the regex mode (its `runFilter` was a regex when it was no filter) opens in regex mode when its
// text is no filter: the button shows it. Typing ends this; it never changes the mode.
let fromOldLink = state.runFilter.trim() !== "" && !new URLSearchParams(location.hash.slice(1)).has("runRegex");

export function mode(): Mode {
  if (!state.runFilter.trim()) return "all";
  return state.runRegex ? "regex" : "filter";
}

/** Whether a run passes the filter box (the last good text's runs while the current one is pending or wrong). */
export function matcher(): Matcher {
  const current = mode();
  if (current === "all") return (lastGood = everyRun);
  if (current === "regex") {
    const pattern = regex(state.runFilter);
    if (pattern) lastGood = (run) => pattern.test(run);
    return lastGood;
  }
  const kept = answered.kept;
  if (answered.text === state.runFilter && kept !== null) lastGood = (run) => kept.has(run);
  else if (fromOldLink) {
    // Until the server tells whether an old link's text is a filter, it is read as the regex it most likely is (as
    // it was then): the page does not draw every run first.
    const pattern = regex(state.runFilter);
    if (pattern) return (run) => pattern.test(run);
  }
  return lastGood;
}

/** Whether the box's text may be asked of the server as the runs table's filter: none, a regex that compiles, or a
 * filter the server answered as one (not a text it is still asked about, nor one it refused). */
export function accepted(): boolean {
  const current = mode();
  if (current === "all") return true;
  if (current === "regex") return regex(state.runFilter) !== null;
  return answered.text === state.runFilter && answered.kept !== null;
}

export interface Description {
  mode: Mode;
  /** The mode in words, "…" while the server is asked. */
  label: string;
  /** Why the text is not taken (the last good text's runs are shown meanwhile). */
  problem: FilterProblem | null;
}

export function describe(): Description {
  const current = mode();
  if (current === "all") return { mode: current, label: "", problem: null };
  if (current === "regex") {
    const refused = regexProblem(state.runFilter);
    const problem = refused === null ? null : { message: refused, before: "", marked: "", after: "", position: null };
    return { mode: current, label: "Regex on run names", problem };
  }
  if (answered.text !== state.runFilter) return { mode: current, label: "…", problem: null };
  return { mode: current, label: "Filter on hparams & metrics", problem: answered.problem };
}

/** Typing: the text is asked about once typing pauses. */
export function typed(): void {
  fromOldLink = false;
  ask();
}

/** Asks the server about the box's text (after typing pauses), or again for new data (`now`). */
export function ask(now = false): void {
  window.clearTimeout(timer);
  const text = state.runFilter;
  if (!text.trim() || state.runRegex) return;
  timer = window.setTimeout(() => void fetchAnswer(text), now ? 0 : ASK_AFTER_MS);
}

async function fetchAnswer(text: string): Promise<void> {
  const ticket = ++asking;
  let answer: FilterAnswer;
  try {
    answer = await getJson<FilterAnswer>("data/trainboard/runs", { filter: text, errors: "answer" });
  } catch {
    return; // the server is away: nothing changes
  }
  if (ticket !== asking) return; // a newer question is on its way
  const kept = answer.runs !== null ? new Set(answer.runs.map((entry) => entry.run)) : null;
  answered = { text, kept, problem: problemOf(text, answer) };
  if (fromOldLink && kept === null) {
    fromOldLink = false;
    update({ runRegex: true });
  }
  fromOldLink = false;
  announce(["runFilter"]);
}

/** The `.*` button: regex mode on or off, the text kept. */
export function toggleRegex(): void {
  fromOldLink = false;
  update({ runRegex: !state.runRegex });
  announce(["runFilter"]);
  ask(true);
}
