"""`/docs`: Swagger UI served from the package, not from a CDN.

FastAPI's default docs page loads Swagger UI from a CDN, which a machine without
internet (this one, many deployments) cannot reach, leaving a blank page. The
`swagger-ui-py` package ships Swagger UI 5 (which renders the OpenAPI 3.1 that
FastAPI writes); its static files are mounted under ``/docs/static``.
"""

from __future__ import annotations

from pathlib import Path

import swagger_ui
from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(swagger_ui.__file__).parent / "static"


def install_docs(app: FastAPI) -> None:
    """Serve Swagger UI at /docs from the bundled files (create the app with docs_url=None)."""
    app.mount("/docs/static", StaticFiles(directory=STATIC), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url=app.openapi_url or "/openapi.json", title=f"{app.title} API",
                                   swagger_js_url="/docs/static/swagger-ui-bundle.js",
                                   swagger_css_url="/docs/static/swagger-ui.css",
                                   swagger_favicon_url="/docs/static/favicon-32x32.png")
