import { describe, expect, it } from "vitest";
import { hexToLab, labToHex } from "../src/color_space";
import { assign, colorOf, colorOfGroup, dashOf, DASHES, PALETTE, pick, shades, showRuns } from "../src/colors";
import { ciede2000 } from "./ciede2000";

// The themes' backgrounds (style.css: --bg).
const BACKGROUNDS = { light: "#ffffff", dark: "#16181d" };

/** WCAG 2 relative luminance. */
function luminance(color: string): number {
  const value = parseInt(color.slice(1), 16);
  const [r, g, b] = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map((channel) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(one: string, other: string): number {
  const [high, low] = [luminance(one), luminance(other)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

function smallestDifference(colors: readonly string[]): number {
  let smallest = Infinity;
  for (let i = 0; i < colors.length; i++)
    for (let j = i + 1; j < colors.length; j++)
      smallest = Math.min(smallest, ciede2000(hexToLab(colors[i]!), hexToLab(colors[j]!)));
  return smallest;
}

describe("ciede2000", () => {
  it("agrees with Sharma, Wu and Dalal's test data", () => {
    // Pairs 1, 7, 17 and 25 of the paper's table.
    expect(ciede2000([50, 2.6772, -79.7751], [50, 0, -82.7485])).toBeCloseTo(2.0425, 4);
    expect(ciede2000([50, 0, 0], [50, -1, 2])).toBeCloseTo(2.3669, 4);
    expect(ciede2000([50, 2.5, 0], [73, 25, -18])).toBeCloseTo(27.1492, 4);
    expect(ciede2000([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387])).toBeCloseTo(1.2644, 4);
  });
});

describe("the palette", () => {
  it("has 24 colours at least 16 apart (CIEDE2000), the first 8 at least 26", () => {
    expect(PALETTE.length).toBeGreaterThanOrEqual(24);
    expect(new Set(PALETTE).size).toBe(PALETTE.length);
    expect(smallestDifference(PALETTE)).toBeGreaterThan(16.2);
    expect(smallestDifference(PALETTE.slice(0, 8))).toBeGreaterThan(26);
  });

  it("stands out on both themes' backgrounds", () => {
    for (const background of Object.values(BACKGROUNDS)) {
      for (const color of PALETTE) {
        expect(contrast(color, background), `${color} on ${background}`).toBeGreaterThanOrEqual(2.6);
        expect(ciede2000(hexToLab(color), hexToLab(background))).toBeGreaterThan(28);
      }
    }
  });
});

describe("colour assignment", () => {
  it("gives runs distinct colours in the order first seen, then the same colours dashed", () => {
    const runs = Array.from({ length: PALETTE.length * 2 + 1 }, (_, index) => `assign/run${index}`);
    showRuns(runs);
    const first = runs.slice(0, PALETTE.length);
    expect(new Set(first.map(colorOf)).size).toBe(PALETTE.length);
    expect(first.every((run) => dashOf(run).length === 0)).toBe(true);
    const second = runs[PALETTE.length]!;
    expect(colorOf(second)).toBe(colorOf(runs[0]!));
    expect(dashOf(second)).toEqual(DASHES[1]);
    expect(dashOf(runs[PALETTE.length * 2]!)).toEqual(DASHES[2]);
    const looks = runs.map((run) => `${colorOf(run)} ${dashOf(run).join(",")}`);
    expect(new Set(looks).size).toBe(runs.length);
  });

  it("keeps a run's colour whatever else is shown or added later", () => {
    const before = colorOf("assign/run3");
    assign(["a new run", "assign/run3", "another"]);
    expect(colorOf("assign/run3")).toBe(before);
  });

  it("gives the runs a filter shows distinct colours, solid, and keeps the colours that do not clash", () => {
    const runs = Array.from({ length: 60 }, (_, index) => `subset/run${String(index).padStart(2, "0")}`);
    showRuns(runs);
    const before = new Map(runs.map((run) => [run, colorOf(run)]));
    // Twelve runs, of which run00 and run48 (and run10 and run58) had the same colour, told apart by their dash.
    const subset = runs.filter((run) => /[08]$/.test(run));
    expect(colorOf("subset/run00")).toBe(colorOf("subset/run48"));
    showRuns(subset);
    expect(new Set(subset.map(colorOf)).size).toBe(subset.length);
    expect(subset.every((run) => dashOf(run).length === 0)).toBe(true);
    // The run that had its colour first keeps it; so do the runs that clashed with none.
    const changed = subset.filter((run) => colorOf(run) !== before.get(run));
    expect(changed).toEqual(["subset/run48", "subset/run58"]);
    // Every run shown again: all 60 drawn apart (colour and dash), the runs never in a clash as they were.
    showRuns(runs);
    const looks = runs.map((run) => `${colorOf(run)} ${dashOf(run).join(",")}`);
    expect(new Set(looks).size).toBe(runs.length);
    for (const run of runs) if (!changed.includes(run)) expect(colorOf(run)).toBe(before.get(run));
  });

  it("lets runs share colours only past every colour and dash", () => {
    const runs = Array.from({ length: PALETTE.length * DASHES.length + 1 }, (_, index) => `many/run${index}`);
    showRuns(runs);
    const looks = runs.map((run) => `${colorOf(run)} ${dashOf(run).join(",")}`);
    expect(new Set(looks).size).toBe(PALETTE.length * DASHES.length);
  });

  it("keeps the colour the user picked", () => {
    pick("assign/run5", "#123456");
    expect(colorOf("assign/run5")).toBe("#123456");
    expect(dashOf("assign/run5")).toEqual([]);
  });
});

describe("groups", () => {
  it("gives the first groups distinct hues, kept while the page is open", () => {
    const names = ["lr=0.1", "lr=0.01", "lr=0.001", "lr=0.0001"];
    const hues = names.map(colorOfGroup);
    expect(new Set(hues).size).toBe(names.length);
    expect(colorOfGroup("lr=0.01")).toBe(hues[1]);
  });

  it("shades a group's colour: the same hue, lightness apart, darker first", () => {
    for (const color of PALETTE) {
      const [, a, b] = hexToLab(color);
      const family = shades(color, 5);
      expect(family).toHaveLength(5);
      expect(new Set(family).size).toBe(5);
      const labs = family.map(hexToLab);
      for (let index = 1; index < labs.length; index++) expect(labs[index]![0]).toBeGreaterThan(labs[index - 1]![0]);
      for (const [, shadeA, shadeB] of labs) {
        const turn = Math.abs(Math.atan2(shadeB, shadeA) - Math.atan2(b, a)) % (2 * Math.PI);
        expect(Math.min(turn, 2 * Math.PI - turn), `${color} hue`).toBeLessThan((25 * Math.PI) / 180);
      }
      expect(smallestDifference(family), color).toBeGreaterThan(6);
      expect(smallestDifference(shades(color, 2)), color).toBeGreaterThan(8);
    }
    expect(shades("#1177cc", 1)).toEqual(["#1177cc"]);
    expect(shades("#1177cc", 0)).toEqual([]);
  });

  it("converts to Lab and back", () => {
    for (const color of PALETTE) expect(labToHex(hexToLab(color))).toBe(color);
  });
});
