// The drawn graph as a file: an SVG that stands alone (the page's styles written into its elements, the whole graph
// in its view box, on the theme's background) and a PNG of it at one pixel per graph unit.

/** The style properties that draw the graph: copied from the page's computed styles into each exported element. */
const PROPERTIES = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-opacity",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "text-anchor",
  "paint-order",
  "display",
];

/** A standalone copy of `canvas` showing all of the graph (`width` × `height` graph units) on `background`. */
export function graphSvg(canvas: SVGSVGElement, width: number, height: number, background: string): string {
  const copy = canvas.cloneNode(true) as SVGSVGElement;
  const originals = [canvas, ...canvas.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  originals.forEach((original, index) => {
    const target = copies[index] as SVGElement;
    const computed = getComputedStyle(original);
    const inline = PROPERTIES.map((name) => `${name}:${computed.getPropertyValue(name)}`).join(";");
    target.setAttribute("style", inline);
    target.removeAttribute("class");
    target.removeAttribute("tabindex");
  });
  const w = Math.ceil(width);
  const h = Math.ceil(height);
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.setAttribute("viewBox", `0 0 ${w} ${h}`);
  copy.setAttribute("width", String(w));
  copy.setAttribute("height", String(h));
  const backdrop = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const [name, value] of [
    ["width", String(w)],
    ["height", String(h)],
    ["fill", background],
  ]) {
    backdrop.setAttribute(name!, value!);
  }
  copy.insertBefore(backdrop, copy.firstChild);
  return new XMLSerializer().serializeToString(copy);
}

/** The SVG `text` drawn into a PNG of `width` × `height` pixels. */
export async function svgToPng(text: string, width: number, height: number): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil(width);
    canvas.height = Math.ceil(height);
    canvas.getContext("2d")!.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the PNG could not be made"))), "image/png"),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Downloads `blob` as a file named `name`. */
export function saveBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A tensor shape as TensorBoard writes it on an edge: "{1,4}" (or "[1, 4]") is "1×4"; unknown sizes are "?". */
export function shapeText(shape: unknown): string {
  const text = String(shape ?? "").trim();
  const inner = /^[{[(](.*)[}\])]$/.exec(text);
  if (!inner) return text;
  const sizes = inner[1]!.split(",").map((size) => size.trim());
  if (sizes.length === 1 && sizes[0] === "") return "scalar";
  return sizes.map((size) => (size === "-1" || size === "" ? "?" : size)).join("×");
}
