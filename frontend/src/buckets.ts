// Reduces series of any length to one column per pixel over the visible x range: each column keeps the mean of the
// smoothed values that fall in it (the line) and the min and max of the raw values (the envelope), so a spike
// between drawn points still shows. Charts of 100 runs x 10,000 points draw as 100 x (chart width) columns.

export interface Columns {
  /** Per column: the mean smoothed value, NaN where the series has no point. */
  line: Float64Array;
  /** Per column: the mean raw value. */
  raw: Float64Array;
  min: Float64Array;
  max: Float64Array;
  count: Uint32Array;
}

export interface Grid {
  low: number;
  high: number;
  size: number;
  log: boolean;
}

/** The x value at the centre of each column. */
export function centres(grid: Grid): Float64Array {
  const out = new Float64Array(grid.size);
  const [low, high] = grid.log ? [Math.log10(grid.low), Math.log10(grid.high)] : [grid.low, grid.high];
  const width = (high - low) / grid.size;
  for (let index = 0; index < grid.size; index++) {
    const centre = low + (index + 0.5) * width;
    out[index] = grid.log ? Math.pow(10, centre) : centre;
  }
  return out;
}

/** `positive`: keep only values above zero (a log scale); otherwise every finite value. */
export function reduce(
  xs: Float64Array,
  raw: Float64Array,
  smoothed: Float64Array,
  grid: Grid,
  positive: boolean,
): Columns {
  const { size } = grid;
  const line = new Float64Array(size);
  const rawMean = new Float64Array(size);
  const min = new Float64Array(size).fill(Infinity);
  const max = new Float64Array(size).fill(-Infinity);
  const count = new Uint32Array(size);
  const [low, high] = grid.log ? [Math.log10(grid.low), Math.log10(grid.high)] : [grid.low, grid.high];
  const scale = high > low ? size / (high - low) : 0;
  for (let index = 0; index < xs.length; index++) {
    const x = grid.log ? Math.log10(xs[index]!) : xs[index]!;
    const value = raw[index]!;
    const smooth = smoothed[index]!;
    if (!(x >= low && x <= high)) continue;
    if (positive ? !(value > 0 && smooth > 0) : !(Number.isFinite(value) && Number.isFinite(smooth))) continue;
    const column = Math.min(size - 1, Math.floor((x - low) * scale));
    line[column]! += smooth;
    rawMean[column]! += value;
    if (value < min[column]!) min[column] = value;
    if (value > max[column]!) max[column] = value;
    count[column]!++;
  }
  for (let column = 0; column < size; column++) {
    const n = count[column]!;
    if (n === 0) {
      line[column] = rawMean[column] = min[column] = max[column] = NaN;
    } else {
      line[column]! /= n;
      rawMean[column]! /= n;
    }
  }
  return { line, raw: rawMean, min, max, count };
}

/** Mean and standard deviation over runs, per column, of the runs' lines (where at least two runs have a point). */
export function spread(lines: Float64Array[], size: number): { mean: Float64Array; std: Float64Array } {
  const mean = new Float64Array(size);
  const std = new Float64Array(size);
  for (let column = 0; column < size; column++) {
    let n = 0;
    let sum = 0;
    let squares = 0;
    for (const line of lines) {
      const value = line[column]!;
      if (Number.isNaN(value)) continue;
      n++;
      sum += value;
      squares += value * value;
    }
    if (n < 2) {
      mean[column] = std[column] = NaN;
      continue;
    }
    mean[column] = sum / n;
    std[column] = Math.sqrt(Math.max(0, squares / n - (sum / n) ** 2));
  }
  return { mean, std };
}
