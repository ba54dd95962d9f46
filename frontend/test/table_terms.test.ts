import { describe, expect, it } from "vitest";
import { completions, differences, namesFilters, nextSort, quoted } from "../src/table_terms";

describe("quoted", () => {
  it("escapes backslashes and quotes for the filter language", () => {
    expect(quoted('a"b\\c')).toBe('"a\\"b\\\\c"');
  });
});

describe("namesFilters", () => {
  it("keeps exactly the runs named, regex characters escaped", () => {
    const [filter] = namesFilters(["exp0/lr0.1", "a+b"]);
    expect(filter).toBe('name ~ "^(exp0\\\\/lr0\\\\.1|a\\\\+b)$"');
  });

  it("cuts many names into filters the server takes", () => {
    const names = Array.from({ length: 1000 }, (_, index) => `run/${index.toString().padStart(5, "0")}`);
    const filters = namesFilters(names);
    expect(filters.length).toBeGreaterThan(1);
    for (const filter of filters) expect(filter.length).toBeLessThanOrEqual(4096);
    const kept = filters.flatMap((filter) => filter.match(/run\\\\\/\d+/g) ?? []);
    expect(kept.length).toBe(1000);
  });
});

describe("differences", () => {
  it("names the columns whose values differ among the rows", () => {
    const rows = [
      ["a", 1, "adam", null],
      ["b", 1, "sgd", null],
      ["c", 1, "adam", 0.5],
    ];
    expect(differences(["seed", "optimizer", "last(acc)"], rows)).toEqual(["optimizer", "last(acc)"]);
  });
});

describe("nextSort", () => {
  it("goes ascending, descending, then none", () => {
    expect(nextSort("", "lr")).toBe("lr");
    expect(nextSort("lr", "lr")).toBe("-lr");
    expect(nextSort("-lr", "lr")).toBe("");
    expect(nextSort("-lr", "max(acc)")).toBe("max(acc)");
  });
});

describe("completions", () => {
  it("completes the last word of the filter", () => {
    const names = ["lr", "last(val/acc)", "max(val/acc)", "optimizer"];
    expect(completions("optimizer = adam and ma", names)).toEqual({
      stem: "optimizer = adam and ",
      options: ["max(val/acc)"],
    });
    expect(completions("l", names).options).toEqual(["lr", "last(val/acc)"]);
    expect(completions("lr < 0.1 ", names).options).toEqual([]);
  });
});
