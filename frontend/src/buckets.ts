// Reduces series of any length to one column per pixel over the visible x range: each column keeps the mean of the
// smoothed values that fall in it (the line) and the min and max of the raw values (the envelope), so a spike
// between drawn points still shows. Charts of 100 runs x 10,000 points draw as 100 x (chart width) columns. The raw
// values are folded once per grid; a new smoothing only averages the smoothed values into the same columns.

/** A series' raw values folded into the grid's columns: what does not change with smoothing. */
export interface RawColumns {
  /** Per point, its column, or -1 where it is outside the grid or not drawn. */
  index: Int32Array;
  /** Per column: the mean raw value, NaN where the series has no point. */
  raw: Float64Array;
  min: Float64Array;
  max: Float64Array;
  count: Uint32Array;
}

export interface Columns extends RawColumns {
  /** Per column: the mean smoothed value, NaN where the series has no point. */
  line: Float64Array;
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
export function reduceRaw(xs: Float64Array, raw: Float64Array, grid: Grid, positive: boolean): RawColumns {
  const { size } = grid;
  const index = new Int32Array(xs.length).fill(-1);
  const rawMean = new Float64Array(size);
  const min = new Float64Array(size).fill(Infinity);
  const max = new Float64Array(size).fill(-Infinity);
  const count = new Uint32Array(size);
  const [low, high] = grid.log ? [Math.log10(grid.low), Math.log10(grid.high)] : [grid.low, grid.high];
  const scale = high > low ? size / (high - low) : 0;
  for (let point = 0; point < xs.length; point++) {
    const x = grid.log ? Math.log10(xs[point]!) : xs[point]!;
    const value = raw[point]!;
    if (!(x >= low && x <= high)) continue;
    if (positive ? !(value > 0) : !Number.isFinite(value)) continue;
    const column = Math.min(size - 1, Math.floor((x - low) * scale));
    index[point] = column;
    rawMean[column]! += value;
    if (value < min[column]!) min[column] = value;
    if (value > max[column]!) max[column] = value;
    count[column]!++;
  }
  for (let column = 0; column < size; column++) {
    const n = count[column]!;
    if (n === 0) rawMean[column] = min[column] = max[column] = NaN;
    else rawMean[column]! /= n;
  }
  return { index, raw: rawMean, min, max, count };
}

/** The mean of `values` per column of `folded`, over the points it draws (above zero only, when `positive`): one
 * pass, so that a new smoothing redraws without folding the raw values again. */
export function reduceLine(values: Float64Array, folded: RawColumns, positive: boolean): Columns {
  const size = folded.count.length;
  const line = new Float64Array(size);
  const count = new Uint32Array(size);
  const { index } = folded;
  for (let point = 0; point < index.length; point++) {
    const column = index[point]!;
    const value = values[point]!;
    if (column < 0 || (positive ? !(value > 0) : !Number.isFinite(value))) continue;
    line[column]! += value;
    count[column]!++;
  }
  for (let column = 0; column < size; column++) line[column] = count[column] ? line[column]! / count[column]! : NaN;
  return { ...folded, line };
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
