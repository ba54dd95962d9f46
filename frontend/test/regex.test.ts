import { describe, expect, it } from "vitest";
import { MAX_PATTERN_LENGTH, regex, regexProblem } from "../src/regex";

describe("regexProblem", () => {
  it("accepts ordinary filters", () => {
    for (const pattern of ["seed0$", "^train/", "lr_(0\\.1|0\\.01)/seed", "[a-z]+_\\d{2,3}", "a{3}b*", "x(?:ab)+y"])
      expect(regexProblem(pattern), pattern).toBeNull();
  });

  it("refuses what can backtrack exponentially", () => {
    expect(regexProblem("(a+)+$")).toMatch(/repeated group/);
    expect(regexProblem("(a|aa)*b")).toMatch(/repeated group/);
    expect(regexProblem("(\\w)\\1")).toMatch(/backreferences/);
    expect(regexProblem("(?<x>a)\\k<x>")).toMatch(/backreferences/);
    expect(regexProblem("a(?=b)")).toMatch(/lookarounds/);
    expect(regexProblem("(?<!a)b")).toMatch(/lookarounds/);
    expect(regexProblem("a*b*c*d*")).toMatch(/at most 3/);
    expect(regexProblem("x".repeat(MAX_PATTERN_LENGTH + 1))).toMatch(/longer than/);
  });

  it("says when the text is no regular expression", () => {
    expect(regexProblem("seed[")).toBe("not a valid regular expression");
    expect(regexProblem("(")).toBe("not a valid regular expression");
  });

  it("reads character classes, escapes and literal braces as the browser does", () => {
    expect(regexProblem("[(+)]+")).toBeNull();
    expect(regexProblem("\\(a+\\)+")).toBeNull();
    expect(regexProblem("a{x}+")).toBeNull();
  });
});

describe("regex", () => {
  it("compiles case-insensitively, or gives null for a refused pattern", () => {
    expect(regex("SEED0$")!.test("exp1/lr0.1/seed0")).toBe(true);
    expect(regex("(a+)+$")).toBeNull();
    expect(regex("Seed", "")!.test("seed")).toBe(false);
  });
});
