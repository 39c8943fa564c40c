"""`/browse`: the memory browser, a page where a person reads what graphmem remembers.

Why this shape: no build step and no CDN (the service must run offline), so the
page is one Jinja2 template and a few plain ES modules shipped in the package
(`templates/`, `static/`). The template only places URLs (`url_for` and the
ASGI root path, so the page works behind a proxy prefix); it carries no memory
data. The scripts ask for an API key once (kept in the tab's sessionStorage)
and read everything through the `/v1` JSON API with it, so the page sees exactly
what the key may see and the browser adds no second access path.

The memory holds whatever people said, hostile text included: the scripts put
data in the page only as text nodes and attribute values (never ``innerHTML``),
and the page is served with a Content-Security-Policy that allows scripts and
styles from this origin only, none inline, so an injected tag would not run.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from jinja2 import Environment, PackageLoader, Template, select_autoescape

HERE = Path(__file__).parent
STATIC = HERE / "static"
STATIC_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,40}\.(?:js|css)$")
MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}

router = APIRouter(tags=["browser"])


@cache
def _page() -> Template:
    """Loaded on first request, not at import (nothing is created at import time);
    autoescaped, though the only values it places are URLs and a version."""
    env = Environment(loader=PackageLoader("graphmem.service", "templates"), autoescape=select_autoescape())
    return env.get_template("browse.html")


def _version() -> str:
    try:
        return version("graphmem")
    except PackageNotFoundError:
        return "dev"


@router.get("/browse", response_class=HTMLResponse, include_in_schema=False)
def browse(request: Request) -> HTMLResponse:
    """The page shell; its scripts load the data with the user's key. Asset URLs are
    paths (with the root path), not absolute URLs, so they hold behind a proxy."""
    html = _page().render(
        root_path=request.scope.get("root_path", ""), version=_version(),
        stylesheet=request.url_for("browse_static", name="browse.css").path,
        script=request.url_for("browse_static", name="main.js").path,
    )
    return HTMLResponse(html, headers=SECURITY_HEADERS)


@router.get("/browse/static/{name}", name="browse_static", include_in_schema=False)
def browse_static(name: str) -> FileResponse:
    """One of the page's scripts or its stylesheet; any other name is a 404.

    The name is checked against a strict pattern before it meets the file
    system, so no path outside `static/` can be asked for.
    """
    path = STATIC / name
    if not STATIC_NAME.match(name) or not path.is_file():
        raise HTTPException(404, "no such file")
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers=SECURITY_HEADERS)
