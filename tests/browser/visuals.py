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


# The box of each non-blank text node under an element, as laid out (HTML and SVG text alike), each cut to its
# ancestors that hide their overflow (an ellipsis), and of the elements matching `extra` (a swatch, say).
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
    const rect = range.getBoundingClientRect();
    if (rect.width && rect.height) boxes.push([node.textContent.trim(), ...clip(rect, node)]);
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
