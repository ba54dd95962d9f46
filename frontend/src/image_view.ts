// How the images dashboard shows its images, as TensorBoard's does: brightness and contrast (CSS filters on every
// image), the actual image size instead of the card's width, and a click that enlarges an image in a dialog
// (Escape, a click outside or the close button closes it).

import "./dashboard_tools.css";
import { h } from "./dom";

/** Sliders in TensorBoard's ranges: brightness 0–2, contrast 0–5 (1 is the image as it is). */
const BRIGHTNESS = { min: 0, max: 2, step: 0.05 };
const CONTRAST = { min: 0, max: 5, step: 0.05 };
/** The enlarged image takes at most this share of the window. */
const ENLARGED_SHARE = 0.85;

function slider(name: string, range: { min: number; max: number; step: number }, apply: (value: number) => void) {
  const input = h("input", { type: "range", class: `image-${name}`, ...range, value: 1, "aria-label": name });
  const shown = h("output", {}, "100%");
  input.addEventListener("input", () => {
    shown.textContent = `${Math.round(Number(input.value) * 100)}%`;
    apply(Number(input.value));
  });
  return {
    input,
    label: h("label", { class: "image-tool" }, `${name[0]!.toUpperCase()}${name.slice(1)} `, input, shown),
  };
}

/** The images toolbar's controls; they act on `target()` (the dashboard's element, through CSS variables). */
export function imageTools(target: () => HTMLElement): HTMLElement[] {
  const brightness = slider("brightness", BRIGHTNESS, (value) =>
    target().style.setProperty("--image-brightness", `${value}`),
  );
  const contrast = slider("contrast", CONTRAST, (value) => target().style.setProperty("--image-contrast", `${value}`));
  const reset = h("button", { type: "button", class: "image-reset" }, "Reset");
  reset.addEventListener("click", () => {
    for (const { input } of [brightness, contrast]) {
      input.value = "1";
      input.dispatchEvent(new Event("input"));
    }
  });
  const actual = h("input", { type: "checkbox", class: "image-actual-size" });
  actual.addEventListener("change", () => target().classList.toggle("actual-size", actual.checked));
  return [
    brightness.label,
    contrast.label,
    reset,
    h("label", { class: "image-tool" }, actual, " Show actual image size"),
  ];
}

/** The image's largest whole zoom (at least 1) that fits the window: pixels stay square and sharp. */
function zoomFor(width: number, height: number): number {
  const room = Math.min((window.innerWidth * ENLARGED_SHARE) / width, (window.innerHeight * ENLARGED_SHARE) / height);
  return Math.max(1, Math.floor(room));
}

/** Shows `image` enlarged in a modal dialog, with its natural size and the zoom it is shown at. */
export function enlarge(image: HTMLImageElement): void {
  const { naturalWidth: width, naturalHeight: height } = image;
  if (!width || !height) return;
  const zoom = zoomFor(width, height);
  const big = h("img", {
    src: image.src,
    alt: image.alt,
    class: "enlarged",
    width: width * zoom,
    height: height * zoom,
    "data-zoom": zoom,
  });
  const close = h("button", { type: "button", class: "close", "aria-label": "Close" }, "×");
  const dialog = h(
    "dialog",
    { class: "image-dialog", "aria-label": image.alt },
    h(
      "div",
      { class: "dialog-bar" },
      h("span", { class: "caption" }, `${image.alt}: ${width} × ${height} px${zoom > 1 ? `, shown ${zoom}×` : ""}`),
      close,
    ),
    big,
  );
  // The dashboard's brightness and contrast apply to the enlarged image too.
  const styles = getComputedStyle(image);
  big.style.filter = styles.filter;
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}
