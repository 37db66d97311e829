"""Modulepreload hints for the landing page's widget chunks (``dashboard.preload``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dashboard.preload import LANDING_WIDGETS, PreloadWidgets, inject_preloads, static_js_dir, widget_chunks

PAGE = b'<html><head><link rel="modulepreload" crossorigin href="./static/js/shared.1.js"></head><body></body></html>'


@pytest.fixture
def js_dir(tmp_path: Path) -> Path:
    files = {
        "Slider.aa.js": 'import{a}from"./shared.1.js";import"./label.2.js";const x=()=>import("./Lazy.3.js");',
        "SliderThumb.bb.js": 'import"./thumb.4.js";',
        "label.2.js": 'import{b}from"./deep.5.js";',
        "deep.5.js": "export const b=1;",
        "shared.1.js": "export const a=1;",
        "Lazy.3.js": "export default 1;",
        "thumb.4.js": "",
        "Radio.cc.js": 'import{b}from"./deep.5.js";',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_chunks_come_with_their_static_imports_dependencies_first(js_dir):
    chunks = widget_chunks(js_dir, ("Slider",))
    assert chunks == ["shared.1.js", "deep.5.js", "label.2.js", "Slider.aa.js"]
    assert "Lazy.3.js" not in chunks  # a lazy import stays lazy
    assert "SliderThumb.bb.js" not in chunks  # another component whose name starts the same


def test_each_chunk_once_and_unknown_widgets_skipped(js_dir):
    chunks = widget_chunks(js_dir, ("Slider", "Radio", "NoSuchWidget"), already=frozenset({"shared.1.js"}))
    assert chunks == ["deep.5.js", "label.2.js", "Slider.aa.js", "Radio.cc.js"]


def test_injection_before_head_end_without_repeating_present_tags():
    page = inject_preloads(PAGE, ["shared.1.js", "Slider.aa.js"])
    assert page.count(b"shared.1.js") == 1
    assert page.index(b"Slider.aa.js") < page.index(b"</head>")
    assert page.replace(b'<link rel="modulepreload" crossorigin href="./static/js/Slider.aa.js">', b"") == PAGE
    assert inject_preloads(b"<html>no head</html>", ["Slider.aa.js"]) == b"<html>no head</html>"
    assert inject_preloads(PAGE, []) == PAGE


def _serve(middleware, scope, start_headers, bodies, status=200):
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": status, "headers": start_headers})
        for i, body in enumerate(bodies):
            await send({"type": "http.response.body", "body": body, "more_body": i < len(bodies) - 1})

    async def receive():
        return {"type": "http.request"}

    async def send(message):
        sent.append(message)

    asyncio.run(middleware(app)(scope, receive, send))
    return sent


def _middleware(js_dir):
    return lambda app: PreloadWidgets(app, js_dir=js_dir, widgets=("Slider",))


HTML = [(b"content-type", b"text/html; charset=UTF-8"), (b"content-length", str(len(PAGE)).encode()), (b"etag", b"x")]


def test_html_pages_get_the_hints_with_a_matching_length(js_dir):
    sent = _serve(_middleware(js_dir), {"type": "http", "method": "GET", "path": "/"}, HTML, [PAGE[:20], PAGE[20:]])
    start, body = sent
    assert body["body"] == inject_preloads(PAGE, widget_chunks(js_dir, ("Slider",)))
    headers = dict(start["headers"])
    assert headers[b"content-length"] == str(len(body["body"])).encode() and headers[b"etag"] == b"x"
    assert [key for key, _ in start["headers"]].count(b"content-length") == 1


@pytest.mark.parametrize("case", ["script", "gzip", "not found", "head request", "websocket"])
def test_everything_else_passes_through_untouched(js_dir, case):
    scope = {"type": "http", "method": "GET", "path": "/"}
    headers, status = HTML, 200
    if case == "script":
        headers = [(b"content-type", b"text/javascript")]
    elif case == "gzip":
        headers = [*HTML, (b"content-encoding", b"gzip")]
    elif case == "not found":
        status = 404
    elif case == "head request":
        scope["method"] = "HEAD"
    else:
        scope = {"type": "websocket", "path": "/_stcore/stream"}
    sent = _serve(_middleware(js_dir), scope, headers, [PAGE], status=status)
    assert [message.get("body") for message in sent] == [None, PAGE]
    assert sent[0]["headers"] == headers


def test_the_installed_streamlit_still_ships_the_landing_widgets_chunks():
    # The hint only helps while the frontend names its chunks this way; if a release renames them, revisit the list.
    js_dir = static_js_dir()
    named = {path.name.split(".")[0] for path in js_dir.glob("*.js")}
    assert set(LANDING_WIDGETS) <= named
    index = (js_dir.parents[1] / "index.html").read_bytes()
    assert b"</head>" in index
    assert len(widget_chunks(js_dir)) >= len(LANDING_WIDGETS)
