"""The Content-Security-Policy of HTML pages, as TensorBoard sends it with its UI."""

from __future__ import annotations

CONTENT_SECURITY_POLICY = ";".join(
    [
        "default-src 'self'",
        "font-src 'self' data:",
        "frame-src 'self' https://ui.perfetto.dev",
        "img-src 'self' data: blob:",
        "object-src 'none'",
        "style-src 'self' https://www.gstatic.com data: 'unsafe-inline'",
        "connect-src 'self'",
        "script-src 'self' 'unsafe-eval'",
    ]
)
