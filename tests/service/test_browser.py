"""The memory browser (`/browse`) driven in headless Chromium against the real service.

Debian's chromium (/usr/bin/chromium; `.ci/run` installs it) is driven through
Playwright's Python package with ``executable_path``: Playwright's own browser
download is never used. The service is the `live` fixture (uvicorn on loopback,
a real Memory); the data is written through the HTTP API like any client would.

Screenshots go to the test's tmp dir, and to ``$GRAPHMEM_TEST_ARTIFACTS`` when
that is set (CI keeps them); ``docs/browse.png`` in the README is one of them.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("GRAPHMEM_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(f"the browser test needs Debian's chromium at {CHROMIUM} (apt-get install chromium; "
                ".ci/run installs it)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test drives chromium with playwright "
                               "(a dev dependency: pip install -e '.[dev]')")

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
USER = "browse_alice"
HOSTILE = '<img src=x onerror="window.__pwned=1">'
SESSIONS = [
    ("s1", "2024-03-10T10:00:00", "I live in Beijing."),
    ("s2", "2024-08-08T09:30:00", "I moved to Shanghai last week."),
    ("s3", "2024-09-01T18:00:00", "My dog is called Rex."),
]
WAIT_MS = 60_000
VERSIONS = 7  # Alice's fact versions: Beijing, Shanghai (lives, moved), Rex, the markup, Acme, the kite


@pytest.fixture(scope="module")
def alice(live) -> str:
    """Alice's three sessions through the API, plus a fact holding markup, one that
    ended and one that expired (added directly); returns her key."""
    with live.client(live.key()) as admin:
        for session_id, when, text in SESSIONS:
            reply = admin.post(f"/v1/users/{USER}/sessions", json={
                "session_id": session_id, "session_time": when,
                "turns": [{"role": "user", "speaker": "Alice", "content": text}]})
            assert reply.status_code == 200, reply.text
    live.memory.add_fact(USER, "Alice", "likes", HOSTILE, valid_at="2024-09-02")
    live.memory.add_fact(USER, "Alice", "works_at", "Acme", valid_at="2023-01-01", invalid_at="2024-06-01")
    live.memory.add_fact(USER, "Alice", "owns", "a kite", valid_at="2023-05-01", expires_at="2024-01-01")
    return live.key(USER)


@pytest.fixture
def shots(tmp_path) -> Iterator[Path]:
    folder = tmp_path / "screenshots"
    folder.mkdir()
    yield folder
    target = os.environ.get("GRAPHMEM_TEST_ARTIFACTS")
    if target:
        shutil.copytree(folder, Path(target) / "browser", dirs_exist_ok=True)


@pytest.fixture
def page(tmp_path):
    """A fresh profile each test (a new --user-data-dir): no key left in storage."""
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            tmp_path / "profile", executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            yield page
            assert errors == [], f"the page's scripts failed: {errors}"
        finally:
            context.close()


def sign_in(page, url: str, key: str) -> None:
    page.goto(f"{url}/browse")
    page.fill("#api-key", key)
    page.click("#key-form button[type=submit]")
    page.wait_for_selector(f"#user option[value={USER}]", state="attached")
    page.wait_for_selector("#facts-table tbody tr[id^=fact-]")


def fact_row(page, status: str, text: str):
    return page.locator(f"#facts-table tbody tr[data-status={status}]", has_text=text)


def test_a_wrong_key_is_refused_and_nothing_is_shown(live, alice, page):
    page.goto(f"{live.url}/browse")
    page.fill("#api-key", "not-a-key")
    page.click("#key-form button[type=submit]")
    sync_api.expect(page.locator("#status")).to_contain_text("refused")
    assert page.locator("#app").is_hidden()


def test_search_shows_the_packet_and_an_abstention(live, alice, page, shots):
    sign_in(page, live.url, alice)
    page.fill("#query", "Where do I live?")
    page.fill("#search-now", "2024-09-15")
    page.click("#search-form button[type=submit]")
    packet = page.locator("#packet")
    sync_api.expect(packet).to_contain_text("Alice lives in Shanghai")
    sync_api.expect(packet.locator(".badge.status-current").first).to_be_visible()
    turn = packet.locator(".turn", has_text="I moved to Shanghai last week.")
    sync_api.expect(turn).to_contain_text("Alice")
    sync_api.expect(turn).to_contain_text("2024-08-08 09:30 UTC")
    page.screenshot(path=shots / "search.png", full_page=True)

    page.fill("#query", "What is my favourite opera?")
    page.click("#search-form button[type=submit]")
    sync_api.expect(packet.locator(".abstain")).to_contain_text("Nothing relevant was ever said")
    sync_api.expect(packet.locator(".turn")).to_have_count(0)


def test_a_superseded_fact_shows_its_source_turn_and_links_its_successor(live, alice, page, shots):
    sign_in(page, live.url, alice)
    old = fact_row(page, "superseded", "Beijing")
    sync_api.expect(old).to_contain_text("2024-03-10 → 2024-07-29")
    old.locator("button.sources").click()
    sources = page.locator("#facts-table tr.sources-row")
    sync_api.expect(sources).to_contain_text("I live in Beijing.")
    sync_api.expect(sources).to_contain_text("Alice")
    sync_api.expect(sources).to_contain_text("2024-03-10 10:00 UTC")
    sync_api.expect(sources).to_contain_text("s1")
    old.locator("a.successor").click()
    new = fact_row(page, "current", "Alice lives in Shanghai")
    sync_api.expect(new).to_have_class(re.compile(r"\bhighlight\b"))
    page.screenshot(path=shots / "facts.png", full_page=True)
    sync_api.expect(fact_row(page, "ended", "Acme")).to_contain_text("2023-01-01 → 2024-06-01")
    sync_api.expect(fact_row(page, "expired", "kite").locator(".badge")).to_have_text("expired")

    # Hostile text is shown as text: no element is made from it and no script ran.
    markup = page.locator("#facts-table tbody tr", has_text=HOSTILE)
    sync_api.expect(markup).to_have_count(1)
    assert markup.locator("img").count() == 0
    assert page.evaluate("window.__pwned") is None


def test_the_timeline_redraws_as_of_and_known_at(live, alice, page, shots):
    sign_in(page, live.url, alice)
    fact_row(page, "superseded", "Beijing").locator(".actions button", has_text="Timeline").click()
    chart = page.locator("#timeline-chart svg")
    then = page.locator("#timeline-then")
    sync_api.expect(chart.locator("g.version")).to_have_count(VERSIONS)
    sync_api.expect(then).to_contain_text("Alice lives in Shanghai")
    sync_api.expect(then).not_to_contain_text("Beijing")

    page.fill("#timeline-as-of", "2024-05-01")
    sync_api.expect(then).to_contain_text("True on 2024-05-01")
    sync_api.expect(then).to_contain_text("Alice lives in Beijing")
    sync_api.expect(then).not_to_contain_text("Shanghai")
    beijing = chart.locator("g.version[data-status=superseded]", has_text="Beijing")
    sync_api.expect(beijing.locator("rect")).to_have_class(re.compile(r"\btrue-then\b"))
    page.locator("#timeline").screenshot(path=shots / "timeline.png")
    old = fact_row(page, "superseded", "Beijing")
    old.locator("button.sources").click()
    sync_api.expect(page.locator("#facts-table tr.sources-row")).to_contain_text("I live in Beijing.")
    scrolled = page.evaluate("window.scrollY")  # bounding boxes are relative to the viewport
    top = page.locator("#facts").bounding_box()["y"] + scrolled
    bottom = page.locator("#timeline").bounding_box()
    end = bottom["y"] + scrolled + bottom["height"]
    page.screenshot(path=shots / "overview.png", full_page=True,  # docs/browse.png
                    clip={"x": 0, "y": top - 8, "width": 1280, "height": end - top + 16})

    # Known at a day before anything was written: graphmem knew nothing then.
    page.fill("#timeline-known-at", "2020-01-01")
    sync_api.expect(chart.locator("g.version")).to_have_count(0)
    sync_api.expect(page.locator("#timeline-chart")).to_contain_text("On 2020-01-01 graphmem knew no fact about Alice.")
    sync_api.expect(then).to_contain_text("Nothing recorded")
    page.fill("#timeline-known-at", "")
    sync_api.expect(chart.locator("g.version")).to_have_count(VERSIONS)


def test_forget_previews_then_deletes(live, alice, page, shots):
    sign_in(page, live.url, alice)
    sync_api.expect(fact_row(page, "current", "Rex")).to_have_count(1)
    page.select_option("#forget-kind", "text")
    page.fill("#forget-value", "Rex")
    page.click("#forget-form button[type=submit]")
    preview = page.locator("#forget-preview")
    sync_api.expect(preview).to_contain_text("This would delete 1 fact, 1 turn and 1 entity")
    sync_api.expect(preview).to_contain_text("Alice has a dog named Rex.")
    sync_api.expect(preview.locator(".turn")).to_contain_text("My dog is called Rex.")
    page.screenshot(path=shots / "forget-preview.png", full_page=True)
    # A dry run deleted nothing.
    with live.client(alice) as client:
        assert any("Rex" in f["fact"] for f in client.get(f"/v1/users/{USER}/versions").json())

    page.click("#forget-confirm")
    sync_api.expect(preview).to_contain_text("Forgotten: 1 fact, 1 turn and 1 entity")
    sync_api.expect(fact_row(page, "current", "Rex")).to_have_count(0)
    sync_api.expect(fact_row(page, "current", "Shanghai").first).to_be_visible()
    page.screenshot(path=shots / "forget-done.png", full_page=True)
    with live.client(alice) as client:
        assert not any("Rex" in f["fact"] for f in client.get(f"/v1/users/{USER}/versions").json())
        assert "Rex" not in client.get(f"/v1/users/{USER}/turns").text
