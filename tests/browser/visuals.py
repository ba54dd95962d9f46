"""What a person sees, measured: painted pixels of an element's screenshot and the boxes of the text it shows."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image
from playwright.sync_api import Locator

# A pixel in a run's colour is far from grey (the background, the grid, the axes and their labels are grey).
SATURATION = 80


def pixels(element: Locator) -> np.ndarray:
    """The element as shown on screen, RGB, int16 (rows, columns, 3)."""
    return np.asarray(Image.open(io.BytesIO(element.screenshot())).convert("RGB"), dtype=np.int16)


def coloured(image: np.ndarray) -> np.ndarray:
    """Where the image is painted in a saturated colour (a run's), as a boolean mask."""
    return np.asarray(image.max(axis=2) - image.min(axis=2) > SATURATION)


def luminance(image: np.ndarray) -> np.ndarray:
    return np.asarray(image @ np.array([0.2126, 0.7152, 0.0722]) / 255)


@dataclass(frozen=True, slots=True)
class Box:
    text: str
    left: float
    top: float
    right: float
    bottom: float

    def intersects(self, other: Box) -> bool:
        # Half a pixel of anti-aliasing is not an overlap.
        return (
            min(self.right, other.right) - max(self.left, other.left) > 0.5
            and min(self.bottom, other.bottom) - max(self.top, other.top) > 0.5
        )

    def inside(self, other: Box) -> bool:
        return (
            self.left >= other.left - 0.5
            and self.top >= other.top - 0.5
            and self.right <= other.right + 0.5
            and self.bottom <= other.bottom + 0.5
        )


# The boxes of each shown, non-blank text node under an element (one per line), as laid out (HTML and SVG text alike),
# each cut to its ancestors that hide their overflow (an ellipsis; a text cut away entirely is not shown), and of the
# elements matching `extra` (a swatch, say).
TEXT_BOXES = """(root, extra) => {
  const boxes = [];
  const clip = (rect, node) => {
    let [left, top, right, bottom] = [rect.left, rect.top, rect.right, rect.bottom];
    for (let parent = node.parentElement; parent && parent !== root.parentElement; parent = parent.parentElement) {
      if (getComputedStyle(parent).overflow === "visible") continue;
      const outer = parent.getBoundingClientRect();
      [left, top, right, bottom] = [Math.max(left, outer.left), Math.max(top, outer.top),
        Math.min(right, outer.right), Math.min(bottom, outer.bottom)];
    }
    return [left, top, right, bottom];
  };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (getComputedStyle(node.parentElement).visibility === "hidden") continue;
    // A box per line: a text wrapped over two lines does not cover the start of the first one. Chromium gives a text
    // cut with an ellipsis two rectangles on one line (what shows, and the ellipsis): they are one box.
    const lines = [];
    for (const rect of range.getClientRects()) {
      if (!rect.width || !rect.height) continue;
      const [left, top, right, bottom] = clip(rect, node);
      if (!(right > left && bottom > top)) continue;
      const line = lines.find((box) => box[1] < bottom && top < box[3]);
      if (line) [line[0], line[1], line[2], line[3]] = [Math.min(line[0], left), Math.min(line[1], top),
        Math.max(line[2], right), Math.max(line[3], bottom)];
      else lines.push([left, top, right, bottom]);
    }
    for (const line of lines) boxes.push([node.textContent.trim(), ...line]);
  }
  for (const element of extra ? root.querySelectorAll(extra) : []) {
    const rect = element.getBoundingClientRect();
    boxes.push([`<${element.getAttribute("class")}>`, rect.left, rect.top, rect.right, rect.bottom]);
  }
  return boxes;
}"""


def text_boxes(element: Locator, extra: str = "") -> list[Box]:
    found: list[list[object]] = element.evaluate(TEXT_BOXES, extra)
    return [Box(str(text), float(a), float(b), float(c), float(d)) for text, a, b, c, d in found]  # type: ignore[arg-type]


def box_of(element: Locator) -> Box:
    box = element.bounding_box()
    assert box is not None
    return Box("", box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"])


def overlapping(boxes: list[Box]) -> list[tuple[str, str]]:
    return [
        (first.text, second.text)
        for index, first in enumerate(boxes)
        for second in boxes[index + 1 :]
        if first.intersects(second)
    ]


def lab(hex_colour: str) -> np.ndarray:
    """CIE L*a*b* (D65) of an sRGB colour written #rrggbb."""
    rgb = np.array([int(hex_colour[index : index + 2], 16) for index in (1, 3, 5)]) / 255
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    ratio = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(ratio > (6 / 29) ** 3, np.cbrt(ratio), ratio / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def colour_difference(first: str, second: str) -> float:
    """How different two colours (#rrggbb) look, CIEDE2000: about 2 is just noticeable side by side."""
    return ciede2000(lab(first), lab(second))


def ciede2000(first: np.ndarray, second: np.ndarray) -> float:
    (l1, a1, b1), (l2, a2, b2) = first, second
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = a1 * (1 + g), a2 * (1 + g)
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    h1, h2 = np.degrees(np.arctan2(b1, a1)) % 360, np.degrees(np.arctan2(b2, a2)) % 360
    dl, dc = l2 - l1, c2 - c1
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    big_dh = 2 * np.sqrt(c1 * c2) * np.sin(np.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 % 360
    t = (
        1
        - 0.17 * np.cos(np.radians(h_mean - 30))
        + 0.24 * np.cos(np.radians(2 * h_mean))
        + 0.32 * np.cos(np.radians(3 * h_mean + 6))
        - 0.20 * np.cos(np.radians(4 * h_mean - 63))
    )
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / np.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * c_mean
    s_h = 1 + 0.015 * c_mean * t
    r_t = -2 * np.sqrt(c_mean**7 / (c_mean**7 + 25**7)) * np.sin(np.radians(60 * np.exp(-(((h_mean - 275) / 25) ** 2))))
    return float(np.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (big_dh / s_h) ** 2 + r_t * (dc / s_c) * (big_dh / s_h)))


# Which of an element's inner corners and centre (an inset of 2 px: borders are anti-aliased) show something else on
# top of it or lie outside the window: a person sees the whole element only when this is empty. A tooltip lets the
# pointer through (pointer-events: none), which elementFromPoint would see through too: the element takes pointer
# events while it is measured (in this one task: no event reaches it meanwhile).
HIDDEN_POINTS = """(element) => {
  const style = element.style;
  const pointerEvents = [style.getPropertyValue("pointer-events"), style.getPropertyPriority("pointer-events")];
  style.setProperty("pointer-events", "auto", "important");
  const rect = element.getBoundingClientRect();
  const inset = 2;
  const points = {
    "top left": [rect.left + inset, rect.top + inset],
    "top right": [rect.right - inset, rect.top + inset],
    "bottom left": [rect.left + inset, rect.bottom - inset],
    "bottom right": [rect.right - inset, rect.bottom - inset],
    centre: [(rect.left + rect.right) / 2, (rect.top + rect.bottom) / 2],
  };
  const hidden = [];
  for (const [name, [x, y]] of Object.entries(points)) {
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) {
      hidden.push(`${name} outside the window`);
      continue;
    }
    const top = document.elementFromPoint(x, y);
    if (top !== element && !element.contains(top)) {
      const what = top ? `${top.tagName.toLowerCase()}${top.id ? "#" + top.id : ""}.${top.className}` : "nothing";
      hidden.push(`${name} under ${what}`);
    }
  }
  style.setProperty("pointer-events", ...pointerEvents);
  return hidden;
}"""

# The shown tooltips (an element of role tooltip, not hidden), each with what hides part of it (HIDDEN_POINTS) and the
# texts in it cut by its own box or the window.
SHOWN_TOOLTIPS = f"""() => {{
  const hiddenPoints = {HIDDEN_POINTS};
  const shown = [...document.querySelectorAll("[role=tooltip]")].filter(
    (tip) => tip.getClientRects().length && getComputedStyle(tip).visibility !== "hidden",
  );
  return shown.map((tip) => {{
    const box = tip.getBoundingClientRect();
    const cut = [];
    const walker = document.createTreeWalker(tip, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {{
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if (!rect.width) continue;
      const inside = rect.left >= Math.max(box.left, 0) - 0.5 && rect.right <= Math.min(box.right, innerWidth) + 0.5 &&
        rect.top >= Math.max(box.top, 0) - 0.5 && rect.bottom <= Math.min(box.bottom, innerHeight) + 0.5;
      if (!inside) cut.push(node.textContent.trim());
    }}
    return {{ hidden: hiddenPoints(tip), cut, rows: tip.querySelectorAll("[data-run]").length }};
  }});
}}"""


def hidden_points(element: Locator) -> list[str]:
    found: list[str] = element.evaluate(HIDDEN_POINTS)
    return found


def distinct_colours(colours: list[str], difference: float) -> int:
    """How many of `colours` can be told apart: the size of a greedy set of them pairwise at least `difference`
    (CIEDE2000) apart."""
    kept: list[np.ndarray] = []
    for colour in colours:
        candidate = lab(colour)
        if all(ciede2000(candidate, other) >= difference for other in kept):
            kept.append(candidate)
    return len(kept)


def too_close(colours: dict[str, str], difference: float) -> list[tuple[str, str, float]]:
    """The pairs of runs whose colours are less than `difference` (CIEDE2000) apart."""
    items = sorted(colours.items())
    return [
        (first, second, round(colour_difference(first_colour, second_colour), 1))
        for index, (first, first_colour) in enumerate(items)
        for second, second_colour in items[index + 1 :]
        if colour_difference(first_colour, second_colour) < difference
    ]
