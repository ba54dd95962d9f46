// Histograms as TensorBoard's dashboard draws them: every step's buckets shared out into the same even bins over the
// range of all steps, then drawn as counts. Writers' buckets are uneven (torch's default ones grow exponentially away
// from zero, so those near zero are about 1e-12 wide): drawn as count per width, they would make one spike at zero.

/** A served bucket: its left and right edges and how many values fell in it. */
export type Bucket = [left: number, right: number, count: number];

/** TensorBoard's number of even bins. */
export const EVEN_BINS = 30;

/** The range covering every step's buckets, widened by one either side when it has no width; null without buckets. */
export function binRange(steps: Bucket[][]): [number, number] | null {
  let low = Infinity;
  let high = -Infinity;
  for (const buckets of steps) {
    for (const [left, right] of buckets) {
      if (left < low) low = left;
      if (right > high) high = right;
    }
  }
  if (!(high >= low)) return null;
  return high > low ? [low, high] : [low - 1, high + 1];
}

/** The counts of `bins` even bins over [low, high]: each bucket's count is shared by how much of its width falls in
 * each bin; a bucket of no width goes whole to the bin holding it. */
export function rebin(buckets: Bucket[], low: number, high: number, bins = EVEN_BINS): Float64Array {
  const counts = new Float64Array(bins);
  const width = (high - low) / bins;
  const binOf = (x: number) => Math.min(bins - 1, Math.max(0, Math.floor((x - low) / width)));
  for (const [left, right, count] of buckets) {
    const span = right - left;
    if (!(span > 0)) {
      counts[binOf(left)]! += count;
      continue;
    }
    for (let bin = binOf(left); bin <= binOf(right); bin++) {
      const overlap = Math.min(right, low + (bin + 1) * width) - Math.max(left, low + bin * width);
      if (overlap > 0) counts[bin]! += (count * overlap) / span;
    }
  }
  return counts;
}
