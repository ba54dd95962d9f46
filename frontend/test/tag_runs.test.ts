import { describe, expect, it } from "vitest";
import { TagRuns } from "../src/tag_runs";

const answer = {
  runs: ["a", "b", "c"],
  tags: {
    loss: [{ displayName: "Loss", description: "", runs: null }],
    acc: [
      { displayName: "Accuracy", description: "", runs: [0] },
      { displayName: "acc", description: "<p>top-1</p>", runs: [2] },
    ],
  },
};

describe("TagRuns", () => {
  it("knows which runs have a tag, null meaning every run", () => {
    const tags = new TagRuns(answer);
    expect(["a", "b", "c"].filter((run) => tags.has(run, "loss"))).toEqual(["a", "b", "c"]);
    expect(["a", "b", "c"].filter((run) => tags.has(run, "acc"))).toEqual(["a", "c"]);
    expect(tags.has("d", "loss")).toBe(false);
    expect(tags.has("a", "nothing")).toBe(false);
  });

  it("gives the tags of some runs", () => {
    const tags = new TagRuns(answer);
    expect([...tags.tagsOf(["b"])]).toEqual(["loss"]);
    expect([...tags.tagsOf(["b", "c"])].sort()).toEqual(["acc", "loss"]);
    expect([...tags.tagsOf(["unknown"])]).toEqual([]);
    expect(tags.tags().sort()).toEqual(["acc", "loss"]);
  });

  it("names a tag as the first of the runs that has it does", () => {
    const tags = new TagRuns(answer);
    expect(tags.displayName("acc", ["b", "c", "a"])).toBe("acc");
    expect(tags.displayName("acc", ["a", "c"])).toBe("Accuracy");
    expect(tags.displayName("acc", ["b"])).toBeUndefined();
  });

  it("is empty before any answer", () => {
    const tags = new TagRuns();
    expect(tags.tags()).toEqual([]);
    expect(tags.has("a", "loss")).toBe(false);
  });
});
