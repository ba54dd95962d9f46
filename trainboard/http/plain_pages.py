"""Small pages without script, for what a browser shows outside the web UI: single sign-on's answers and the page
that makes upload tokens. Their text is escaped here; `body` is markup made by the caller from escaped parts."""

from __future__ import annotations

import html

from starlette.responses import HTMLResponse

from trainboard.http.responses import SECURITY_HEADERS

# No script at all; the style inline; forms post to this server only.
PLAIN_POLICY = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} · trainboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">{head}
<style>
:root {{ color-scheme: light dark; font-family: system-ui, sans-serif; }}
body {{ display: grid; place-items: center; min-height: 90vh; margin: 0; }}
main {{ border: 1px solid #8886; border-radius: 6px; padding: 1.5em; width: min(36em, 90vw); }}
code {{ word-break: break-all; }}
.problem {{ color: #c62828; }}
</style></head>
<body><main><h1>{title}</h1>
{body}
</main></body></html>
"""


def plain_page(
    title: str, body: str, *, status_code: int = 200, refresh_to: str | None = None, form_leads_to: str = ""
) -> HTMLResponse:
    """A page titled `title`; with `refresh_to`, it goes on to that path at once (as a navigation of this site's own,
    so that the browser sends its SameSite=Strict cookies). `form_leads_to`: an origin its forms' answers may redirect
    to besides this server (the browser holds a form's redirects to the page's form-action too)."""
    head = "" if refresh_to is None else f'\n<meta http-equiv="refresh" content="0;url={html.escape(refresh_to)}">'
    page = PAGE.format(title=html.escape(title), head=head, body=body)
    policy = PLAIN_POLICY.replace("form-action 'self'", f"form-action 'self' {form_leads_to}".rstrip())
    headers = {**SECURITY_HEADERS, "Content-Security-Policy": policy}
    return HTMLResponse(page, status_code=status_code, headers=headers)


def problem_page(title: str, problem: str, *, again: str | None = None, status_code: int = 400) -> HTMLResponse:
    """A refusal, said in words; `again`: the path where the user may start over."""
    link = "" if again is None else f'\n<p><a href="{html.escape(again)}">Sign in again</a></p>'
    return plain_page(title, f'<p class="problem">{html.escape(problem)}</p>{link}', status_code=status_code)
