"""A learner's kernel driven through the hub: execute cells and click widgets over the kernel's websocket.

The websocket is the one JupyterLab opens (``/user/<name>/api/kernels/<id>/channels``),
reached through the hub's proxy with the learner's token; messages use
Jupyter's default JSON framing (a binary frame only when a message has buffers).
"""

from __future__ import annotations

import json
import struct
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

import nbformat
import websocket

OUTPUT_TYPES = ("stream", "display_data", "execute_result", "error")
KERNEL_INFO_WAIT = 40  # seconds for the first reply on a new socket before asking again on a new one


@dataclass
class Execution:
    """What one cell did: its status, its outputs as notebook outputs, and its error if it raised."""

    status: str
    outputs: list = field(default_factory=list)
    error: str = ""

    @property
    def text(self) -> str:
        """Everything the cell printed or showed as text."""
        parts = []
        for output in self.outputs:
            if "text" in output:
                parts.append(output["text"])
            elif "text/plain" in output.get("data", {}):
                parts.append(output["data"]["text/plain"])
        return "".join(parts)


def decode(frame: str | bytes) -> dict:
    """A kernel message from a websocket frame: JSON text, or the binary layout used when buffers travel."""
    if isinstance(frame, str):
        return json.loads(frame)
    count = struct.unpack("!i", frame[:4])[0]
    offsets = struct.unpack("!" + "I" * count, frame[4 : 4 * (count + 1)])
    end = offsets[1] if count > 1 else len(frame)
    return json.loads(frame[offsets[0] : end].decode("utf-8"))


class Kernel:
    """One kernel of a learner's server, over its websocket channels."""

    def __init__(self, server_url: str, token: str, kernel_id: str, timeout: float = 120, attempts: int = 3):
        ws_url = server_url.replace("http://", "ws://", 1).rstrip("/") + f"/api/kernels/{kernel_id}/channels"
        self.timeout = timeout
        for attempt in range(1, attempts + 1):
            self.session = uuid.uuid4().hex
            self.socket = websocket.create_connection(
                f"{ws_url}?session_id={self.session}", header=[f"Authorization: token {token}"], timeout=timeout
            )
            try:
                self.request("kernel_info_request", {}, within=KERNEL_INFO_WAIT)
                return
            except (websocket.WebSocketConnectionClosedException, TimeoutError):
                # the server closes the socket when the kernel is slow to start, and a request sent while it
                # still connects to the kernel can go unanswered (seen once with ten kernels starting on two
                # cores); JupyterLab reconnects and asks again too
                self.socket.close()
                if attempt == attempts:
                    raise
                time.sleep(2)

    def close(self) -> None:
        self.socket.close()

    def message(self, msg_type: str, content: dict) -> dict:
        """A shell message, as a frontend sends it."""
        header = {
            "msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": self.session, "username": "learner",
            "version": "5.3", "date": datetime.now(UTC).isoformat(),
        }  # fmt: skip
        return {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}

    def request(
        self, msg_type: str, content: dict, on_iopub=None, replied: bool = True, within: float | None = None
    ) -> dict | None:
        """Send a shell message; return its reply once the kernel is idle again (IOPub passed to on_iopub).

        ``replied=False`` for a message the kernel answers on IOPub only (a widget's comm_msg); ``within``
        seconds (default: the kernel's timeout), then TimeoutError.
        """
        sent = self.message(msg_type, content)
        self.socket.send(json.dumps(sent))
        reply, idle = None, False
        seconds = self.timeout if within is None else within
        deadline = time.monotonic() + seconds
        while (replied and reply is None) or not idle:
            received = self.receive(deadline, f"{msg_type}: no reply within {seconds:g} s")
            if received is None or received.get("parent_header", {}).get("msg_id") != sent["header"]["msg_id"]:
                continue
            if received["channel"] == "shell":
                reply = received
            elif received["channel"] == "iopub":
                if received["msg_type"] == "status" and received["content"]["execution_state"] == "idle":
                    idle = True
                elif on_iopub is not None:
                    on_iopub(received)
        return reply

    def receive(self, deadline: float, late: str) -> dict | None:
        """The next kernel message, or None for a ping; TimeoutError(late) once the deadline has passed.

        The server pings every 30 s, and websocket-client's recv() answers a ping and reads on, so with the
        socket's own timeout alone a message that never comes would be waited for as long as the server lives.
        """
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(late)
        self.socket.settimeout(left)
        try:
            opcode, data = self.socket.recv_data(control_frame=True)
        except websocket.WebSocketTimeoutException:
            raise TimeoutError(late) from None
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            raise websocket.WebSocketConnectionClosedException("the server closed the socket")
        if opcode == websocket.ABNF.OPCODE_TEXT:
            return decode(data.decode("utf-8") if isinstance(data, bytes) else data)
        if opcode == websocket.ABNF.OPCODE_BINARY:
            return decode(data)
        return None

    def execute(self, code: str) -> Execution:
        """Run code as a cell; its status, outputs and error."""
        outputs: list = []

        def keep(received: dict) -> None:
            if received["msg_type"] in OUTPUT_TYPES:
                outputs.append(nbformat.v4.output_from_msg(received))

        reply = self.request("execute_request", {"code": code, "silent": False, "store_history": True,
                                                 "user_expressions": {}, "allow_stdin": False,
                                                 "stop_on_error": True}, on_iopub=keep)  # fmt: skip
        assert reply is not None
        content = reply["content"]
        error = f"{content.get('ename')}: {content.get('evalue')}" if content["status"] == "error" else ""
        return Execution(content["status"], outputs, error)

    def click(self, model_id: str) -> float:
        """Click a widget button as the browser does; seconds until the kernel has sent every update and is idle."""
        start = time.perf_counter()
        data = {"method": "custom", "content": {"event": "click"}}
        self.request("comm_msg", {"comm_id": model_id, "data": data}, replied=False)
        return time.perf_counter() - start
