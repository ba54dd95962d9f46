// Canvas drawing of a chart's parts that uPlot does not draw: envelopes between two series, plain lines, and the
// marks along a line.

/** The shapes of the marks along a line (per tag, on a custom scalars chart). */
export const MARKERS = ["circle", "square", "triangle", "diamond", "cross", "plus"] as const;

/** Where a chart's columns are drawn: `size` of them, at x(column) and y(value) in the canvas' pixels. */
export interface ColumnCanvas {
  context: CanvasRenderingContext2D;
  size: number;
  x: (index: number) => number;
  y: (value: number) => number;
}

export function fillBetween(
  { context, size, x, y }: ColumnCanvas,
  upper: Float64Array,
  lower: Float64Array,
  fill: string,
): void {
  context.fillStyle = fill;
  const half = size > 1 ? Math.max(0.5, (x(1) - x(0)) / 2) : 0.5;
  let start = -1;
  for (let index = 0; index <= size; index++) {
    const present = index < size && Number.isFinite(upper[index]!) && Number.isFinite(lower[index]!);
    if (present && start < 0) start = index;
    if (!present && start >= 0) {
      // Each column spans its full width, flat at its extremes: a spike in one column stays a column wide.
      context.beginPath();
      for (let column = start; column < index; column++) {
        context.lineTo(x(column) - half, y(upper[column]!));
        context.lineTo(x(column) + half, y(upper[column]!));
      }
      for (let column = index - 1; column >= start; column--) {
        context.lineTo(x(column) + half, y(lower[column]!));
        context.lineTo(x(column) - half, y(lower[column]!));
      }
      context.closePath();
      context.fill();
      start = -1;
    }
  }
}

export function strokeLine(
  { context, size, x, y }: ColumnCanvas,
  values: Float64Array,
  stroke: string,
  width = 1,
): void {
  context.strokeStyle = stroke;
  context.lineWidth = width * devicePixelRatio;
  context.beginPath();
  let started = false;
  for (let index = 0; index < size; index++) {
    const value = values[index]!;
    if (!Number.isFinite(value)) continue;
    if (started) context.lineTo(x(index), y(value));
    else context.moveTo(x(index), y(value));
    started = true;
  }
  context.stroke();
}

export function drawMarker(
  context: CanvasRenderingContext2D,
  shape: (typeof MARKERS)[number],
  x: number,
  y: number,
  size: number,
): void {
  context.beginPath();
  if (shape === "circle") context.arc(x, y, size, 0, 2 * Math.PI);
  else if (shape === "square") context.rect(x - size, y - size, 2 * size, 2 * size);
  else if (shape === "triangle") {
    context.moveTo(x, y - size * 1.2);
    context.lineTo(x + size * 1.1, y + size);
    context.lineTo(x - size * 1.1, y + size);
    context.closePath();
  } else if (shape === "diamond") {
    context.moveTo(x, y - size * 1.3);
    context.lineTo(x + size, y);
    context.lineTo(x, y + size * 1.3);
    context.lineTo(x - size, y);
    context.closePath();
  } else {
    const [dx, dy] = shape === "cross" ? [size, size] : [size * 1.3, 0];
    context.moveTo(x - dx, y - dy);
    context.lineTo(x + dx, y + dy);
    context.moveTo(x - dy, y + dx);
    context.lineTo(x + dy, y - dx);
    context.stroke();
    return;
  }
  context.fill();
}

export function toHex(color: string): string {
  return /^#[0-9a-f]{6}$/i.test(color) ? color : "#808080";
}
