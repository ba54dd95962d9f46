// What the run filter box shows under itself when its text does not parse: the server's answer (mode "invalid",
// the error and the position where it was found) made into the text with that place marked and the message.

/** The server's answer to a filter with `errors=answer` (`/data/trainboard/runs`). */
export interface FilterAnswer {
  mode: "filter" | "invalid";
  runs: { run: string }[] | null;
  error?: string;
  position?: number | null;
}

export interface FilterProblem {
  /** What was expected and found, without "at position N" (the mark shows where). */
  message: string;
  /** The text cut around the problem: `marked` is the word at the position, or "" at the end of the text. */
  before: string;
  marked: string;
  after: string;
  /** 0-based character position, null when the filter is refused as a whole (too long). */
  position: number | null;
}

/** The answer's problem, or null when the text is a filter. */
export function problemOf(text: string, answer: FilterAnswer): FilterProblem | null {
  if (answer.mode !== "invalid") return null;
  const message = (answer.error ?? "not a filter").replace(/^at position \d+: /, "");
  const position = answer.position ?? null;
  if (position === null) return { message, before: "", marked: "", after: "", position };
  const at = Math.min(Math.max(0, position), text.length);
  const end = text.slice(at).search(/\s|$/) + at;
  return { message, before: text.slice(0, at), marked: text.slice(at, end), after: text.slice(end), position: at };
}
