// The sign-in page: a token pasted here is exchanged for a session (a cookie of this browser; the token is not kept),
// then the page the user was going to is loaded again, signed in.

import * as api from "./api";
import { h } from "./dom";
import { header } from "./header";
import { atRoot } from "./place";

export function show(): void {
  const input = h("input", {
    type: "password",
    id: "token",
    name: "token",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    placeholder: "Paste your token here",
    "aria-describedby": "token-help",
  });
  const button = h("button", { type: "submit", id: "sign-in-submit", class: "primary" }, "Sign in");
  const error = h("p", { class: "error", id: "sign-in-error", role: "alert" });
  const form = h(
    "form",
    { class: "sign-in", "aria-labelledby": "sign-in-title" },
    h("h2", { id: "sign-in-title" }, "Sign in"),
    h("label", { for: "token" }, "Access token"),
    input,
    h(
      "p",
      { class: "hint", id: "token-help" },
      "Paste a token from the server's operator, or make one with ",
      h("code", {}, "trainboard tokens create --user NAME"),
      ". This browser keeps a session, not the token.",
    ),
    button,
    error,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    button.disabled = true;
    error.textContent = "";
    api.signIn(input.value.trim()).then(
      () => location.reload(),
      (failure: unknown) => {
        error.textContent =
          failure instanceof api.ApiError && failure.status === 401
            ? "This token is not valid: it is unknown, revoked or expired."
            : `Could not sign in: ${failure instanceof Error ? failure.message : String(failure)}`;
        button.disabled = false;
        input.select();
      },
    );
  });
  document.body.replaceChildren(header(), h("main", { class: "sign-in-page" }, form));
  input.focus();
  // Where the server signs users in with their identity provider, that comes first.
  api.me().then(
    (found) => {
      if (!found.sso) return;
      const going = encodeURIComponent(location.pathname + location.search);
      const link = h(
        "a",
        { id: "sign-in-sso", class: "primary", href: atRoot(`auth/oidc/start?next=${going}`) },
        "Sign in with single sign-on",
      );
      form.insertBefore(h("p", {}, link), form.children[1] ?? null);
    },
    () => undefined,
  );
}
