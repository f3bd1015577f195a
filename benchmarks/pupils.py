"""A pupil's page load as the classroom server sees it, recorded once from Chromium and replayed without a browser.

In a class every pupil's browser runs on the pupil's own device; the server only answers. On a benchmark machine
the browsers would share the server's cores, so five real pages opened together measure five browsers' work on two
cores, not the server. ``record`` notes what one real page asks of the server (its page, scripts and styles, its
kernel, the messages it sends on the kernel's websocket); ``replay`` asks the same of the server from Python, as a
pupil on another device would, and times it until the page has what it needs: the widgets' states from the kernel.
What the browser then does with them (parsing the scripts, drawing the widgets) happens on the pupil's device and
is not in this time.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1
from tornado.httpclient import AsyncHTTPClient
from tornado.websocket import websocket_connect

WEBSOCKET_PROTOCOL = "v1.kernel.websocket.jupyter.org"  # Jupyter Server's binary framing, what Voila's page speaks
PARALLEL_REQUESTS = 6  # a browser's connections per server over HTTP/1.1
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class Traffic:
    """What one page asked of the classroom server: the paths of its files and its websocket frames, in order."""

    files: list[str] = field(default_factory=list)
    frames: list[bytes] = field(default_factory=list)


def record(page, url: str, until_usable) -> Traffic:
    """Load ``url`` in the Playwright ``page`` and note its requests and websocket frames until ``until_usable()``
    (a callable that waits for the page to be usable) returns."""
    traffic, origin = Traffic(), urlsplit(url).netloc

    def on_request(request) -> None:
        parts = urlsplit(request.url)
        if request.method == "GET" and parts.netloc == origin and request.url != url and "/api/" not in parts.path:
            traffic.files.append(parts.path + (f"?{parts.query}" if parts.query else ""))

    def on_websocket(websocket) -> None:
        websocket.on("framesent", lambda payload: traffic.frames.append(bytes(payload, "utf-8") if isinstance(
            payload, str) else bytes(payload)))  # fmt: skip

    page.on("request", on_request)
    page.on("websocket", on_websocket)
    page.goto(url, wait_until="commit")
    until_usable()
    page.remove_listener("request", on_request)
    page.remove_listener("websocket", on_websocket)
    return traffic


def fresh_ids(frames: list[bytes]) -> list[bytes]:
    """The frames with every id (message, session, comm) replaced by a new one of the same length, consistently, so
    the binary framing's offsets still hold and no message repeats the recorded page's."""
    new: dict[bytes, bytes] = {}
    return [UUID.sub(lambda old: new.setdefault(old.group(), str(uuid.uuid4()).encode()), frame) for frame in frames]


def message(frame: bytes) -> tuple[str, dict, dict, dict]:
    """A binary websocket frame of Jupyter Server's v1 protocol: channel, header, parent header, content."""
    channel, parts = deserialize_msg_from_ws_v1(frame)
    header, parent, _metadata, content = map(json.loads, parts[:4])
    return channel, header, parent, content


@dataclass
class Visit:
    """One replayed page load: seconds from the start to its page, to its last file and to the widgets' states; its
    kernel and its open websocket."""

    page: float
    files: float
    seconds: float
    kernel_id: str
    websocket: object


async def replay(url: str, traffic: Traffic, start: float, timeout: float = 180) -> Visit:
    """Ask the server for what ``traffic`` recorded, as a pupil's browser would: the page, then its files six at a
    time, then the kernel's websocket and its frames; seconds from ``start`` (time.monotonic) to the widgets' states."""
    client = AsyncHTTPClient(force_instance=True, max_clients=PARALLEL_REQUESTS)
    root = url.rstrip("/")
    try:
        page = (await client.fetch(url, request_timeout=timeout)).body
        page_seconds = time.monotonic() - start
        kernel_id = re.search(rb'"kernelId":\s*"([0-9a-f-]{36})"', page).group(1).decode()
        await asyncio.gather(*(client.fetch(root + path, request_timeout=timeout) for path in traffic.files))
        files_seconds = time.monotonic() - start
        await client.fetch(f"{root}/api/kernels/{kernel_id}", request_timeout=timeout)
    finally:
        client.close()
    frames = fresh_ids(traffic.frames)
    session = message(frames[0])[1]["session"]
    websocket = await websocket_connect(
        f"ws{root[4:]}/api/kernels/{kernel_id}/channels?session_id={session}", subprotocols=[WEBSOCKET_PROTOCOL]
    )
    asked = {message(frame)[1]["msg_id"] for frame in frames if b"request_states" in frame}
    for frame in frames:
        await websocket.write_message(frame, binary=True)
    while True:
        received = await asyncio.wait_for(websocket.read_message(), timeout)
        if received is None:
            raise RuntimeError(f"the kernel's websocket closed before the widgets' states came ({url})")
        if isinstance(received, bytes) and b"update_states" in received:
            _channel, _header, parent, content = message(received)
            if parent.get("msg_id") in asked and content.get("data", {}).get("method") == "update_states":
                return Visit(page_seconds, files_seconds, time.monotonic() - start, kernel_id, websocket)


async def leave(url: str, visit: Visit) -> None:
    """Close the page as a browser does: the websocket, then Voila's request to shut the page's kernel down."""
    visit.websocket.close()
    client = AsyncHTTPClient(force_instance=True)
    try:
        await client.fetch(f"{url.rstrip('/')}/voila/api/shutdown/{visit.kernel_id}", method="POST", body="")
    finally:
        client.close()
