// Every element is built here: user text only ever reaches the page as text nodes or attribute values, never as markup.

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, ...children);
  return element;
}

/** An SVG element, built as `h` builds HTML ones. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  setAttributes(element, attributes);
  append(element, ...children);
  return element;
}

function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(element: Element): void {
  element.replaceChildren();
}

const SIGNIFICANT_DIGITS = 6;

/** A number to 6 significant digits, trailing zeros dropped, in exponent form below 0.001 and from 1e6 on, as
 * TensorBoard's d3 formats (`~` trimming, `e-4`/`e+6`): 0.001, 3e-4, 1.23457e-5, 1234.57, 1e+6. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const rounded = Number(value.toPrecision(SIGNIFICANT_DIGITS));
  const magnitude = Math.abs(rounded);
  if (magnitude === 0) return "0";
  if (magnitude >= 1e6 || magnitude < 1e-3) {
    const [mantissa, exponent] = rounded.toExponential(SIGNIFICANT_DIGITS - 1).split("e") as [string, string];
    return `${mantissa.replace(/\.?0+$/, "")}e${exponent}`;
  }
  return String(rounded);
}

export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

/** A moment (Unix seconds) as local date and time to the minute: 2024-05-01 14:03. */
export function formatDate(seconds: number): string {
  const date = new Date(seconds * 1000);
  const two = (value: number) => String(value).padStart(2, "0");
  return (
    `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}`
  );
}

/** How long ago a moment (Unix seconds) was, in words: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function formatAge(seconds: number, now = Date.now() / 1000): string {
  const age = Math.max(0, now - seconds);
  if (age < 60) return "just now";
  if (age < 3600) return `${Math.floor(age / 60)} min ago`;
  if (age < 86400) return `${Math.floor(age / 3600)} h ago`;
  if (age < 30 * 86400) return `${Math.floor(age / 86400)} day${age < 2 * 86400 ? "" : "s"} ago`;
  return formatDate(seconds).slice(0, 10);
}

/** Downloads `text` as a file named `name`. */
export function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a", { href: url, download: name });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
