// The "Metrics" dialog of the scalars dashboard: the experiment's derived metrics (data/trainboard/definitions), each
// a name and an expression over its scalar tags, listed with a button to remove it, and a form to define one. The
// server checks an expression: its refusal says where, and the dialog marks that character. Once defined, a derived
// metric is a scalar tag like any other, so its card comes with the page's next listing. Where the page cannot write
// (a pin, or a read role on a team server) the button is hidden.

import "./derived.css";
import { ApiError, getJson } from "./api";
import { h } from "./dom";
import { writable } from "./write_access";

export interface Definition {
  name: string;
  expression: string;
  align: "exact" | "asof";
}

interface Refusal {
  error?: string;
  position?: number | null;
}

const PATH = "data/trainboard/definitions";

let changed: () => void = () => undefined;

/** What the page does once a metric is defined or removed (its tags are listed again). */
export function onChange(listener: () => void): void {
  changed = listener;
}

const list = h("ul", { class: "definition-list", "aria-label": "Derived metrics" });
const nameInput = h("input", {
  type: "text",
  id: "definition-name",
  placeholder: "gap",
  spellcheck: "false",
  required: true,
  "aria-label": "Name of the derived metric",
});
const expressionInput = h("input", {
  type: "text",
  id: "definition-expression",
  placeholder: "train/loss - val/loss",
  spellcheck: "false",
  required: true,
  "aria-label": "Expression",
});
const alignInput = h(
  "select",
  { id: "definition-align", "aria-label": "Alignment of the tags by step" },
  h("option", { value: "exact" }, "exact steps"),
  h("option", { value: "asof" }, "as of each step"),
);
const problem = h("div", { class: "definition-problem", role: "alert", id: "definition-problem" });
const form = h(
  "form",
  { class: "definition-form", method: "dialog" },
  h("label", {}, "Name ", nameInput),
  h("label", { class: "expression" }, "Expression ", expressionInput),
  h("label", {}, "Align ", alignInput),
  h("button", { type: "submit", class: "define" }, "Define"),
  problem,
);
const help = h(
  "p",
  { class: "definition-help" },
  "Tags by name (a / b divides, a/b is a tag; `other-name` in backticks), + - * / **, comparisons, ",
  "log exp sqrt abs clip min max where, ema diff cumsum cummax cummin rolling_mean, asof(tag).",
);
const close = h("button", { type: "button", class: "close", "aria-label": "Close" }, "×");
const dialog = h(
  "dialog",
  { class: "definitions-dialog", "aria-label": "Derived metrics" },
  h("div", { class: "dialog-bar" }, h("b", {}, "Derived metrics"), close),
  list,
  form,
  help,
);

export const button = h(
  "button",
  { type: "button", id: "definitions-button", hidden: true, title: "Define metrics from the scalar tags" },
  "Metrics…",
);

button.addEventListener("click", () => void open());
close.addEventListener("click", () => dialog.close());
dialog.addEventListener("click", (event) => {
  if (event.target === dialog) dialog.close();
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void define();
});
expressionInput.addEventListener("input", () => showProblem(null));

void writable().then((can) => (button.hidden = !can));

async function open(): Promise<void> {
  if (!dialog.isConnected) document.body.append(dialog);
  showProblem(null);
  if (!dialog.open) dialog.showModal();
  nameInput.focus();
  await showList();
}

async function showList(): Promise<void> {
  let found: Definition[];
  try {
    found = (await getJson<{ definitions: Definition[] }>(PATH)).definitions;
  } catch (error) {
    list.replaceChildren(h("li", { class: "error" }, String(error instanceof Error ? error.message : error)));
    return;
  }
  list.replaceChildren(
    ...(found.length
      ? found.map((definition) =>
          h(
            "li",
            { "data-name": definition.name },
            h("b", { class: "name" }, definition.name),
            " = ",
            h("code", { class: "expression" }, definition.expression),
            definition.align === "asof" ? h("span", { class: "align" }, " (as of each step)") : "",
            h(
              "button",
              {
                type: "button",
                class: "remove",
                "aria-label": `Remove ${definition.name}`,
                onclick: () => void remove(definition.name),
              },
              "Remove",
            ),
          ),
        )
      : [h("li", { class: "empty" }, "No derived metrics yet.")]),
  );
}

async function define(): Promise<void> {
  const body = { name: nameInput.value.trim(), expression: expressionInput.value, align: alignInput.value };
  const response = await fetch(PATH, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => null);
  if (!response) {
    showProblem({ error: "The server is unreachable: the metric may not have been defined." });
    return;
  }
  if (!response.ok) {
    const refusal = (await response.json().catch(() => ({}))) as Refusal;
    showProblem({ error: refusal.error ?? `${response.status} ${response.statusText}`, position: refusal.position });
    return;
  }
  nameInput.value = "";
  expressionInput.value = "";
  showProblem(null);
  await showList();
  changed();
}

async function remove(name: string): Promise<void> {
  const response = await fetch(`${PATH}?${new URLSearchParams({ name })}`, { method: "DELETE" }).catch(() => null);
  if (!response?.ok) {
    const refusal = response ? ((await response.json().catch(() => ({}))) as Refusal) : {};
    showProblem({ error: refusal.error ?? new ApiError("The server is unreachable.").message });
    return;
  }
  await showList();
  changed();
}

/** The server's refusal, with the expression shown up to the character at fault and that character marked. */
function showProblem(refusal: Refusal | null): void {
  problem.replaceChildren();
  delete problem.dataset.position;
  if (!refusal) return;
  problem.append(h("span", { class: "message" }, refusal.error ?? ""));
  const at = refusal.position;
  if (typeof at !== "number") return;
  problem.dataset.position = String(at);
  const text = expressionInput.value;
  problem.append(
    h("code", { class: "where" }, text.slice(0, at), h("mark", {}, text.slice(at, at + 1) || " "), text.slice(at + 1)),
  );
  expressionInput.focus();
  expressionInput.setSelectionRange(at, Math.min(text.length, at + 1));
}
