"""Resource hints that let the browser load the landing page's widget code before the page asks for it.

Streamlit's frontend fetches and compiles each widget's code (a JavaScript chunk) the first time an
element of that kind arrives over the websocket, so on a fresh page the Select view's sliders,
toggles, number inputs, radios and segmented controls wait for their code after the script run is
done.  :class:`PreloadWidgets` adds ``<link rel="modulepreload">`` tags for those chunks, and for
the chunks they import, to the HTML page Streamlit serves: the browser then fetches and compiles
them while the websocket connects and the first run computes.  A hint only: a chunk that this
Streamlit release names differently is left out, and the page works the same without any of them
(``benchmarks/bench_first_render.py`` measures the effect).
"""

from __future__ import annotations

import re
from pathlib import Path

# Frontend components the landing page draws before its first paint; each ships as "<Name>.<hash>.js".
LANDING_WIDGETS = ("Slider", "Checkbox", "NumberInput", "Radio", "ButtonGroup", "Html")
# Static imports only: ``import("./x.js")`` (a lazy import) has a parenthesis and is left to load on demand.
_STATIC_IMPORT = re.compile(rb'(?:\bfrom|\bimport)\s*"\./([\w.\-]+\.js)"')
_PRELOADED = re.compile(rb'href="\./static/js/([\w.\-]+\.js)"')


def static_js_dir() -> Path:
    """Folder of the installed Streamlit's frontend chunks."""
    import streamlit

    return Path(streamlit.__file__).resolve().parent / "static" / "static" / "js"


def widget_chunks(js_dir: Path, widgets=LANDING_WIDGETS, *, already: frozenset[str] = frozenset()) -> list[str]:
    """File names of the chunks ``widgets`` need, with everything they import statically, in load order.

    Parameters
    ----------
    js_dir : Path
        Folder holding the frontend's ``*.js`` chunks.
    widgets : sequence of str
        Component names; a name with no ``<name>.<hash>.js`` chunk in ``js_dir`` is skipped.
    already : frozenset of str
        Chunk names the page preloads anyway; left out of the result.

    Returns
    -------
    list of str
        Chunk file names, dependencies before the chunks that import them, each once.
    """
    found: list[str] = []
    seen = set(already)

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        path = js_dir / name
        if not path.is_file():
            return
        for dependency in _STATIC_IMPORT.findall(path.read_bytes()):
            visit(dependency.decode())
        found.append(name)

    for widget in widgets:
        for path in sorted(js_dir.glob(f"{widget}.*.js")):
            if path.name.count(".") == 2:  # "<widget>.<hash>.js", not "<widget>Something.<hash>.js"
                visit(path.name)
    return found


def inject_preloads(html: bytes, chunks: list[str]) -> bytes:
    """``html`` with a modulepreload tag per chunk not already preloaded, just before ``</head>``."""
    present = {name.decode() for name in _PRELOADED.findall(html)}
    tags = b"".join(
        b'<link rel="modulepreload" crossorigin href="./static/js/' + name.encode() + b'">'
        for name in chunks if name not in present
    )
    head_end = html.find(b"</head>")
    if not tags or head_end < 0:
        return html
    return html[:head_end] + tags + html[head_end:]


class PreloadWidgets:
    """ASGI middleware: adds the landing widgets' modulepreload tags to every HTML page the server sends.

    Other responses, compressed responses and websockets pass through untouched.
    """

    def __init__(self, app, *, js_dir: Path | None = None, widgets=LANDING_WIDGETS) -> None:
        self.app = app
        self._js_dir = js_dir
        self._widgets = tuple(widgets)
        self._chunks: list[str] | None = None

    def chunks(self) -> list[str]:
        if self._chunks is None:  # read once, on the first page served: the server starts no slower
            js_dir = self._js_dir or static_js_dir()
            self._chunks = widget_chunks(js_dir, self._widgets) if js_dir.is_dir() else []
        return self._chunks

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        held: dict = {}
        body: list[bytes] = []

        async def send_with_hints(message) -> None:
            if message["type"] == "http.response.start":
                headers = {key.lower(): value for key, value in message.get("headers", [])}
                html = headers.get(b"content-type", b"").startswith(b"text/html")
                if html and b"content-encoding" not in headers and message.get("status") == 200:
                    held["start"] = message
                    return
            elif message["type"] == "http.response.body" and "start" in held:
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                page = inject_preloads(b"".join(body), self.chunks())
                start = held.pop("start")
                headers = [(key, value) for key, value in start.get("headers", []) if key.lower() != b"content-length"]
                headers.append((b"content-length", str(len(page)).encode()))
                await send({**start, "headers": headers})
                await send({"type": "http.response.body", "body": page, "more_body": False})
                return
            await send(message)

        await self.app(scope, receive, send_with_hints)
