import { describe, expect, it } from "vitest";
import { problemOf } from "../src/filter_problem";

// Answers as /data/trainboard/runs?errors=answer gives them (tests/http/test_trainboard_api.py checks the server).
describe("problemOf", () => {
  it("marks the end of a half-typed filter", () => {
    const answer = {
      mode: "invalid" as const,
      runs: null,
      error: "at position 4: expected a value (a number, a word, a quoted string, true or false), found the end",
      position: 4,
    };
    expect(problemOf("lr <", answer)).toEqual({
      message: "expected a value (a number, a word, a quoted string, true or false), found the end",
      before: "lr <",
      marked: "",
      after: "",
      position: 4,
    });
  });

  it("marks the word where the filter stopped", () => {
    const answer = {
      mode: "invalid" as const,
      runs: null,
      error: "at position 16: expected and, or or the end, found 'anc'",
      position: 16,
    };
    const problem = problemOf("val/loss < 0.46 anc x", answer)!;
    expect([problem.before, problem.marked, problem.after]).toEqual(["val/loss < 0.46 ", "anc", " x"]);
    expect(problem.message).toBe("expected and, or or the end, found 'anc'");
  });

  it("keeps a position past the text inside it, and a problem of the whole text without one", () => {
    const beyond = problemOf("ab", { mode: "invalid", runs: null, error: "at position 9: x", position: 9 })!;
    expect([beyond.before, beyond.marked, beyond.position]).toEqual(["ab", "", 2]);
    const whole = problemOf("a = 1", { mode: "invalid", runs: null, error: "longer than 4096 characters" })!;
    expect(whole).toEqual({
      message: "longer than 4096 characters",
      before: "",
      marked: "",
      after: "",
      position: null,
    });
  });

  it("has no problem for a filter", () => {
    expect(problemOf("lr < 1", { mode: "filter", runs: [{ run: "a" }] })).toBeNull();
  });
});
