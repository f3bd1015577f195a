"""The hub tests' kernel client gives up at its deadline, also while the server keeps pinging the socket.

No hub here: a stand-in socket answers what websocket-client's would.
"""

from __future__ import annotations

import json
import time

import pytest
import websocket

from tests.hub.kernel import Kernel


class PingingSocket:
    """A socket that only ever receives pings, as a server's does while the kernel says nothing.

    It stops the test after ``most`` pings: a client that ignored its deadline would otherwise read forever.
    """

    def __init__(self, most: int = 10_000):
        self.sent, self.pings, self.most = [], 0, most

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def settimeout(self, seconds: float) -> None:
        self.timeout = seconds

    def recv_data(self, control_frame: bool = False):
        self.pings += 1
        if self.pings > self.most:
            raise RuntimeError(f"still reading after {self.most} pings: the deadline was not kept")
        time.sleep(0.001)
        return websocket.ABNF.OPCODE_PING, b""


def kernel_on(socket) -> Kernel:
    kernel = Kernel.__new__(Kernel)  # no connection: the stand-in socket instead
    kernel.socket, kernel.session, kernel.timeout = socket, "test", 0.2
    return kernel


def test_a_reply_that_never_comes_is_a_timeout_even_while_pings_arrive():
    socket = PingingSocket()
    kernel = kernel_on(socket)
    with pytest.raises(TimeoutError, match="execute_request: no reply within 0.2 s"):
        kernel.execute("1 + 1")
    assert socket.pings > 1  # pings came and were read past, until the deadline


def test_a_reply_and_idle_for_the_request_end_it_and_other_messages_are_passed_over():
    socket = PingingSocket()
    kernel = kernel_on(socket)
    frames = iter([])

    def recv_data(control_frame: bool = False):
        sent_id = socket.sent[-1]["header"]["msg_id"]
        nonlocal frames
        if not socket.sent[-1].get("_answered"):
            socket.sent[-1]["_answered"] = True
            parent = {"msg_id": sent_id}
            frames = iter([
                (websocket.ABNF.OPCODE_PING, b""),
                (websocket.ABNF.OPCODE_TEXT, json.dumps({"channel": "iopub", "parent_header": {"msg_id": "other"},
                                                         "msg_type": "stream", "content": {}}).encode()),
                (websocket.ABNF.OPCODE_TEXT, json.dumps({"channel": "iopub", "parent_header": parent,
                                                         "msg_type": "stream", "header": {"msg_type": "stream"},
                                                         "content": {"name": "stdout", "text": "2\n"}}).encode()),
                (websocket.ABNF.OPCODE_TEXT, json.dumps({"channel": "shell", "parent_header": parent,
                                                         "msg_type": "execute_reply",
                                                         "content": {"status": "ok"}}).encode()),
                (websocket.ABNF.OPCODE_TEXT, json.dumps({"channel": "iopub", "parent_header": parent,
                                                         "msg_type": "status",
                                                         "content": {"execution_state": "idle"}}).encode()),
            ])  # fmt: skip
        return next(frames)

    socket.recv_data = recv_data
    execution = kernel.execute("print(1 + 1)")
    assert execution.status == "ok" and execution.text == "2\n"
