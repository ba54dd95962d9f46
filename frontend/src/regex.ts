// User regular expressions (the run and tag filters, often from the URL) run on the browser's backtracking engine,
// where `(a+)+$` against a long run name takes exponential time and freezes the tab. So a pattern compiles only when
// it is short and has none of what makes backtracking blow up: a repeated group that itself repeats or has
// alternatives, backreferences, lookarounds, or more than a few variable repetitions in all (each one multiplies
// the work on a failing match by the length of the text).

export const MAX_PATTERN_LENGTH = 1024;
export const MAX_VARIABLE_REPEATS = 3;

interface Group {
  repeats: boolean;
  alternatives: boolean;
}

interface Quantifier {
  length: number;
  variable: boolean; // matches a varying number of times: *, +, ?, {n,m} with m > n
  repeating: boolean; // may match more than once
}

/** Why `text` is refused as a filter, or null when it compiles safely. */
export function regexProblem(text: string): string | null {
  if (text.length > MAX_PATTERN_LENGTH) return `longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(text, "i");
  } catch {
    return "not a valid regular expression";
  }
  return backtrackingRisk(text);
}

/** The compiled pattern (case-insensitive by default, as TensorBoard's filters), or null when it is refused. */
export function regex(text: string, flags = "i"): RegExp | null {
  return regexProblem(text) === null ? new RegExp(text, flags) : null;
}

function backtrackingRisk(pattern: string): string | null {
  const groups: Group[] = [{ repeats: false, alternatives: false }];
  let variable = 0;
  let at = 0;
  while (at < pattern.length) {
    const char = pattern[at]!;
    let closed: Group | null = null;
    if (char === "\\") {
      const next = pattern[at + 1] ?? "";
      if (/[1-9]/.test(next) || pattern.startsWith("k<", at + 1))
        return "backreferences are not allowed (they can take exponential time)";
      at += 2;
    } else if (char === "[") {
      at = classEnd(pattern, at);
    } else if (char === "(") {
      if (/^\(\?<?[=!]/.test(pattern.slice(at, at + 4))) {
        return "lookarounds are not allowed (they can take exponential time)";
      }
      groups.push({ repeats: false, alternatives: false });
      // Past `(`, `(?:` or `(?<name>`: no quantifier may follow these.
      at += pattern.startsWith("(?:", at) ? 3 : pattern.startsWith("(?<", at) ? pattern.indexOf(">", at) + 1 : 1;
      continue;
    } else if (char === ")") {
      closed = groups.length > 1 ? groups.pop()! : null;
      at += 1;
    } else {
      if (char === "|") groups[groups.length - 1]!.alternatives = true;
      at += 1;
    }
    const quantifier = quantifierAt(pattern, at);
    if (quantifier !== null) {
      if (closed !== null && quantifier.repeating && (closed.repeats || closed.alternatives))
        return "a repeated group may not repeat inside or have alternatives (it can take exponential time)";
      if (quantifier.variable) variable += 1;
      if (quantifier.repeating || quantifier.variable) for (const group of groups) group.repeats = true;
      at += quantifier.length;
    }
    if (closed !== null) {
      const parent = groups[groups.length - 1]!;
      parent.repeats ||= closed.repeats;
      parent.alternatives ||= closed.alternatives;
    }
  }
  if (variable > MAX_VARIABLE_REPEATS)
    return `at most ${MAX_VARIABLE_REPEATS} of *, +, ? and {n,m} are allowed (each multiplies the time to match)`;
  return null;
}

/** Where the character class opening at `start` ends (as the browser reads it without the u flag). */
function classEnd(pattern: string, start: number): number {
  let at = pattern[start + 1] === "^" ? start + 2 : start + 1;
  while (at < pattern.length) {
    if (pattern[at] === "\\") at += 2;
    else if (pattern[at] === "]") return at + 1;
    else at += 1;
  }
  return at;
}

function quantifierAt(pattern: string, at: number): Quantifier | null {
  const char = pattern[at];
  let found: Quantifier | null = null;
  if (char === "*" || char === "+") found = { length: 1, variable: true, repeating: true };
  else if (char === "?") found = { length: 1, variable: true, repeating: false };
  else if (char === "{") {
    const counted = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at, at + 24));
    if (counted === null) return null; // a literal brace
    const low = Number(counted[1]);
    const high = counted[2] === undefined ? low : counted[3] === "" ? Infinity : Number(counted[3]);
    found = { length: counted[0].length, variable: high > low, repeating: high > 1 };
  }
  if (found !== null && pattern[at + found.length] === "?") found.length += 1; // lazy
  return found;
}
