import { describe, expect, it } from "vitest";
import {
  groupRows,
  lines,
  sortGroups,
  summarise,
  summaryLines,
  summaryTitle,
  type GroupRow,
  type NumberSummary,
} from "../src/table_groups";
import { tQuantile } from "../src/student_t";

/** numpy's mean and std (ddof=0), written out: the reference the group rows must equal. */
function reference(values: number[]): [number, number] {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return [mean, Math.sqrt(values.map((v) => (v - mean) ** 2).reduce((a, b) => a + b, 0) / values.length)];
}

describe("summarise", () => {
  it("gives the mean and population std of the finite values, non-finite ones left out and counted", () => {
    const summary = summarise([1, 2, "NaN", 4, "Infinity", null, "-Infinity", undefined]);
    const [mean, std] = reference([1, 2, 4]);
    expect(summary).toMatchObject({ kind: "number", mean, std, finite: 3, nonFinite: 3, missing: 2 });
  });

  it("gives the 95 % interval of the mean by Student's t over the finite values' sample std (SciPy's figures)", () => {
    const summary = summarise([1, 2, "NaN", 4, null]) as NumberSummary;
    const sampleStd = Math.sqrt(((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 2);
    const half = (4.302652729749462 * sampleStd) / Math.sqrt(3); // scipy.stats.t.ppf(0.975, 2)
    expect(summary.sampleStd).toBeCloseTo(sampleStd, 14);
    expect(summary.low).toBeCloseTo(7 / 3 - half, 12);
    expect(summary.high).toBeCloseTo(7 / 3 + half, 12);
    expect(summarise([5])).toMatchObject({ low: null, high: null, sampleStd: null });
    expect(summarise([5, 5])).toMatchObject({ low: 5, high: 5, sampleStd: 0 });
  });

  it("has no mean where no value is finite", () => {
    expect(summarise(["NaN", "Infinity"])).toEqual({
      kind: "number",
      mean: null,
      std: null,
      sampleStd: null,
      low: null,
      high: null,
      finite: 0,
      nonFinite: 2,
      missing: 0,
    });
  });

  it("has a std of 0 for one run and equal values", () => {
    expect(summarise([0.1])).toMatchObject({ mean: 0.1, std: 0 });
    expect(summarise([0.1, 0.1, 0.1])).toMatchObject({ std: 0 });
  });

  it("stays exact for values far from zero (two passes, not the mean of squares)", () => {
    const values = [1e9 + 1, 1e9 + 2, 1e9 + 3];
    expect(summarise(values)).toMatchObject({ mean: 1e9 + 2, std: Math.sqrt(2 / 3) });
  });

  it("counts each text value, most frequent first; a column with any text is text", () => {
    expect(summarise(["running", "finished", "finished", null])).toEqual({
      kind: "text",
      values: [
        ["finished", 2],
        ["running", 1],
      ],
      missing: 1,
    });
    expect(summarise([1, "adam"]).kind).toBe("text");
  });
});

const ROWS: unknown[][] = [
  ["c", 3, "finished"],
  ["a", 1, "finished"],
  ["d", "NaN", "running"],
  ["b", 2, "running"],
  ["e", null, "finished"],
];
const MEMBERS = [
  { name: "x", runs: ["a", "b", "c"] },
  { name: "y", runs: ["d", "e"] },
  { name: "z", runs: ["gone"] },
];

describe("groupRows", () => {
  it("summarises each group's runs in the table's order, dropping a group with no row", () => {
    const found = groupRows(MEMBERS, ROWS, 2);
    expect(found.map((group) => [group.name, group.runs])).toEqual([
      ["x", ["c", "a", "b"]],
      ["y", ["d", "e"]],
    ]);
    expect(found[0]!.columns[0]).toMatchObject({ mean: 2, finite: 3, nonFinite: 0 });
    expect(found[1]!.columns[0]).toMatchObject({ mean: null, finite: 0, nonFinite: 1, missing: 1 });
    expect(found[1]!.columns[1]).toMatchObject({
      kind: "text",
      values: [
        ["finished", 1],
        ["running", 1],
      ],
    });
  });
});

describe("sortGroups", () => {
  const group = (name: string, mean: number | null): GroupRow => ({
    name,
    runs: [name],
    columns: [
      {
        kind: "number",
        mean,
        std: 0,
        sampleStd: null,
        low: null,
        high: null,
        finite: mean === null ? 0 : 1,
        nonFinite: 0,
        missing: 0,
      },
    ],
  });
  const groups = [group("a", 2), group("b", null), group("c", 1), group("d", 2)];
  const names = (sorted: GroupRow[]) => sorted.map((found) => found.name).join("");

  it("sorts by the column's mean, ties by name, groups without a mean last both ways", () => {
    expect(names(sortGroups(groups, ["acc"], "acc"))).toBe("cadb");
    expect(names(sortGroups(groups, ["acc"], "-acc"))).toBe("adcb");
  });

  it("sorts by name on the name, and keeps the server's order otherwise", () => {
    expect(names(sortGroups(groups, ["acc"], "-name"))).toBe("dcba");
    expect(names(sortGroups(groups, ["acc"], ""))).toBe("abcd");
    expect(names(sortGroups(groups, ["acc"], "status"))).toBe("abcd");
  });
});

describe("lines", () => {
  it("puts each group's row above its runs, and only the row where it is collapsed", () => {
    const groups = groupRows(MEMBERS, ROWS, 2);
    const shown = (collapsed: Set<string>) =>
      lines(groups, ROWS, collapsed).map((line) => ("group" in line ? `[${line.group.name}]` : String(line.row[0])));
    expect(shown(new Set())).toEqual(["[x]", "c", "a", "b", "[y]", "d", "e"]);
    expect(shown(new Set(["x"]))).toEqual(["[x]", "[y]", "d", "e"]);
  });
});

describe("summaryLines", () => {
  it("says the mean, then ± std and how many values were not finite (the interval of the mean is in the title)", () => {
    const format = (value: number) => value.toFixed(2);
    expect(summaryLines(summarise([1, 3]), format)).toEqual(["2.00", "± 1.00"]);
    expect(summaryLines(summarise([1, 3, "NaN"]), format)).toEqual(["2.00", "± 1.00 · 1 NaN/inf"]);
    expect(summaryLines(summarise(["NaN"]), format)).toEqual(["—", "1 NaN/inf"]);
    expect(summaryLines(summarise(["adam", "adam"]), format)).toEqual(["adam", ""]);
    expect(summaryLines(summarise(["adam", "sgd", "adam"]), format)).toEqual(["adam ×2, sgd ×1", ""]);
  });

  it("titles the whole of it", () => {
    const half = (tQuantile(0.975, 1) * Math.SQRT2) / Math.SQRT2;
    expect(summaryTitle("max(acc)", summarise([1, 3, "NaN", null]), 4)).toBe(
      "max(acc): mean 2 ± std 1 (population, n) of 2 finite values; 95 % interval of the mean" +
        ` [${2 - half}, ${2 + half}] (Student's t, 1 degrees of freedom,` +
        ` sample std ${Math.SQRT2} (n − 1)); 1 non-finite left out; 1 of 4 runs lack it`,
    );
    expect(summaryTitle("acc", summarise([1]), 1)).toBe(
      "acc: mean 1 ± std 0 (population, n) of 1 finite values; no 95 % interval of the mean below 2 values",
    );
  });
});
