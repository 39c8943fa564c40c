"""The memory browser's files as served over real HTTP (no browser needed): the page
and every script it loads, its security headers, and the rules its scripts keep.

`test_browser.py` drives the page itself in chromium; these checks also run where
chromium is absent, and would catch a script that is not shipped or a name that
escapes `static/`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import graphmem.service.browse as browse

STATIC = Path(browse.__file__).parent / "static"
IMPORT = re.compile(r"""^import .* from "\./([a-z_-]+\.js)";$""", re.MULTILINE)


def test_the_page_needs_no_key_and_carries_no_data(live):
    with live.client() as client:
        page = client.get("/browse")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "unsafe-inline" not in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert '<script type="module" src="/browse/static/main.js">' in page.text
    assert "<script>" not in page.text  # no inline script: the CSP would block it anyway


def test_every_script_the_page_imports_is_served(live):
    """Walk the ES-module imports from main.js: each file is shipped and served as JavaScript."""
    seen, todo = set(), ["main.js"]
    with live.client() as client:
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            reply = client.get(f"/browse/static/{name}")
            assert reply.status_code == 200, name
            assert reply.headers["content-type"].startswith("text/javascript")
            todo.extend(IMPORT.findall(reply.text))
        css = client.get("/browse/static/browse.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert seen == {p.name for p in STATIC.glob("*.js")}, "a shipped script is never loaded, or one is missing"


@pytest.mark.parametrize("name", ["browse.py", "..%2Fbrowse.py", "%2e%2e%2fapp.py", "nope.js", "main.js.map", ".js"])
def test_nothing_outside_the_static_files_is_served(live, name):
    with live.client() as client:
        assert client.get(f"/browse/static/{name}").status_code == 404


def test_scripts_never_parse_data_as_html():
    """The memory holds hostile text: data reaches the page only through textContent
    and attributes (`dom.el`), never an HTML parser."""
    sinks = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function")
    assert sinks.findall("row.innerHTML = fact.fact;") == ["innerHTML"]  # the scan would see one
    offenders = {p.name: sinks.findall(p.read_text()) for p in STATIC.glob("*.js")}
    assert {name: found for name, found in offenders.items() if found} == {}
