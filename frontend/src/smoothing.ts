// Smoothing runs on every point the API serves for a series, before the chart reduces the series to its pixel
// columns: zooming, resizing and display downsampling never change a smoothed value.

export type Smoother = "ema" | "ma" | "none";

/** TensorBoard's exponential moving average with debiasing: non-finite values pass through and do not count; a
 * constant series stays as it is. */
export function ema(values: Float64Array, weight: number, into?: Float64Array): Float64Array {
  const smoothed = into ?? new Float64Array(values.length);
  let constant = true;
  for (let index = 1; index < values.length && constant; index++) constant = values[index] === values[0];
  let last = 0;
  // weight ** (points so far), kept by multiplication: the debiasing divisor is 1 - power.
  let power = 1;
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    if (constant || !Number.isFinite(value)) {
      smoothed[index] = value;
      continue;
    }
    last = last * weight + (1 - weight) * value;
    power *= weight;
    smoothed[index] = weight === 1 ? last : last / (1 - power);
  }
  return smoothed;
}

/** The mean of the last `window` finite values up to and including each point; non-finite values pass through. */
export function movingAverage(values: Float64Array, window: number, into?: Float64Array): Float64Array {
  const smoothed = into ?? new Float64Array(values.length);
  const kept: number[] = [];
  let sum = 0;
  let start = 0;
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    if (!Number.isFinite(value)) {
      smoothed[index] = value;
      continue;
    }
    kept.push(value);
    sum += value;
    if (kept.length - start > window) sum -= kept[start++]!;
    smoothed[index] = sum / (kept.length - start);
  }
  return smoothed;
}

/** `into`: an array of the same length to write into (a slider's every move would otherwise allocate as much as
 * the series holds). */
export function smooth(
  values: Float64Array,
  smoother: Smoother,
  weight: number,
  window: number,
  into?: Float64Array,
): Float64Array {
  if (smoother === "ema" && weight > 0) return ema(values, weight, into);
  if (smoother === "ma" && window > 1) return movingAverage(values, window, into);
  return values;
}
