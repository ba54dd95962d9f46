// The scalars' tags as `/data/trainboard/scalar_tags` gives them: each tag once, with the runs that have it (indices
// into the answer's runs, or null for every run), grouped by the tag's display name and description. 10,000 runs
// that log the same 50 tags are 50 entries, where TensorBoard's run -> tag listing is 500,000 (24 MB to read).

export interface TagVariant {
  displayName: string;
  description: string;
  /** Indices into the answer's runs; null: every run. */
  runs: number[] | null;
}

export interface TagRunsAnswer {
  runs: string[];
  tags: Record<string, TagVariant[]>;
}

interface Variant {
  displayName: string;
  runs: Set<number> | null;
}

export class TagRuns {
  private readonly runIndex: Map<string, number>;
  private readonly variants: Map<string, Variant[]>;

  constructor(answer: TagRunsAnswer = { runs: [], tags: {} }) {
    this.runIndex = new Map(answer.runs.map((run, index) => [run, index]));
    this.variants = new Map(
      Object.entries(answer.tags).map(([tag, variants]) => [
        tag,
        variants.map((variant) => ({
          displayName: variant.displayName,
          runs: variant.runs === null ? null : new Set(variant.runs),
        })),
      ]),
    );
  }

  /** Every tag, of any run. */
  tags(): string[] {
    return [...this.variants.keys()];
  }

  /** The variant of `tag` that `run` has, if it has the tag. */
  private variantOf(run: string, tag: string): Variant | undefined {
    const index = this.runIndex.get(run);
    if (index === undefined) return undefined;
    return this.variants.get(tag)?.find((variant) => variant.runs === null || variant.runs.has(index));
  }

  has(run: string, tag: string): boolean {
    return this.variantOf(run, tag) !== undefined;
  }

  /** The tags that at least one of `runs` has. */
  tagsOf(runs: readonly string[]): Set<string> {
    const indices = runs.flatMap((run) => this.runIndex.get(run) ?? []);
    const found = new Set<string>();
    if (indices.length === 0) return found;
    for (const [tag, variants] of this.variants) {
      const had = variants.some(
        (variant) => variant.runs === null || indices.some((index) => variant.runs!.has(index)),
      );
      if (had) found.add(tag);
    }
    return found;
  }

  /** The display name of `tag` in the first of `runs` that has it. */
  displayName(tag: string, runs: readonly string[]): string | undefined {
    for (const run of runs) {
      const variant = this.variantOf(run, tag);
      if (variant) return variant.displayName;
    }
    return undefined;
  }
}
