"""A Streamlit session without a browser: speaks the server's own websocket protocol and renders nothing.

It does what the browser's websocket layer does and no more: it opens ``/_stcore/stream``, asks
for a page (``rerun_script``), keeps the widgets' ids and values from the deltas it receives, and
sends a widget's new value as the browser does after a slider move (the widget states it holds,
and the fragment's id when the widget lives in an ``st.fragment``). An action's time is from the
request sent to the ``script_finished`` received: the server's work plus a loopback hop, with no
client-side rendering at all.

Used by bench/bench_load.py. Not a test helper: nothing here asserts.
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
import uuid
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ContextInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


@dataclass
class Widget:
    id: str
    kind: str  # the element's type: slider, button, selectbox, ...
    label: str
    fragment_id: str
    element: object  # the element's own proto (min, max, step, value, ...)


@dataclass
class Action:
    seconds: float  # request sent -> script_finished received
    messages: int  # forward messages received for it
    bytes: int
    errors: list[str] = field(default_factory=list)  # exception elements, or the run did not finish


class Session:
    """One user's session. ``await Session.open(url, page)`` returns it with the page loaded."""

    def __init__(self, ws, url: str):
        self.ws, self.url = ws, url
        self.widgets: dict[tuple[str, str], Widget] = {}  # by (kind, label): a slider and its number input share a label
        self.states: dict[str, WidgetState] = {}  # by widget id: what the browser would send back
        self.page_hash = ""
        self.page_name = ""
        self.session_id = ""
        self.xsrf: str | None = None
        self.first_verdict: float | None = None

    @classmethod
    async def open(cls, url: str, page: str, query: str = "") -> tuple["Session", Action]:
        ws = await websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                                      max_size=None, open_timeout=120, ping_interval=None)
        s = cls(ws, url)
        s.page_name = page
        action = await s.rerun(query=query)
        return s, action

    async def close(self) -> None:
        await self.ws.close()

    def _client_state(self, query: str, fragment_id: str = ""):
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = query
        cs.page_script_hash = self.page_hash
        cs.page_name = "" if self.page_hash else self.page_name
        cs.fragment_id = fragment_id
        if not fragment_id:
            self.widgets.clear()  # a whole run: the widgets are the ones it draws
        cs.context_info.CopyFrom(ContextInfo(timezone="UTC", timezone_offset=0, locale="en-US",
                                             url=f"{self.url}/{self.page_name}", color_scheme="light"))
        for state in self.states.values():
            cs.widget_states.widgets.append(state)
        return msg

    async def rerun(self, query: str = "", fragment_id: str = "") -> Action:
        t0 = time.perf_counter()
        await self.ws.send(self._client_state(query, fragment_id).SerializeToString())
        return await self._until_finished(t0)

    async def set_slider(self, label: str, value: float) -> Action:
        """Move a slider to ``value`` as the browser does: its new state, then a rerun of its fragment."""
        w = self.widgets["slider", label]
        st = WidgetState(id=w.id)
        st.double_array_value.data.append(float(value))
        self.states[w.id] = st
        return await self.rerun(fragment_id=w.fragment_id)

    async def click(self, label: str) -> Action:
        """Press a button (a trigger: sent once, as the browser does)."""
        w = self.widgets["button", label]
        state = WidgetState(id=w.id, trigger_value=True)
        msg = self._client_state("", w.fragment_id)
        msg.rerun_script.widget_states.widgets.append(state)
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return await self._until_finished(t0)

    async def upload(self, label: str, name: str, data: bytes) -> Action:
        """Put a file into a file uploader as the browser does: ask for an upload URL, PUT the file
        with the XSRF token, then rerun with the uploader's new state. The time includes the PUT."""
        w = self.widgets["file_uploader", label]
        t0 = time.perf_counter()
        req = BackMsg()
        req.file_urls_request.request_id = uuid.uuid4().hex
        req.file_urls_request.file_names.append(name)
        req.file_urls_request.session_id = self.session_id
        await self.ws.send(req.SerializeToString())
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout=600))
            if msg.WhichOneof("type") == "file_urls_response":
                urls = msg.file_urls_response.file_urls[0]
                break
        await asyncio.to_thread(self._put, urls.upload_url, name, data)
        st = WidgetState(id=w.id)
        info = st.file_uploader_state_value.uploaded_file_info.add()
        info.name, info.size, info.file_id = name, len(data), urls.file_id
        info.file_urls.CopyFrom(urls)
        self.states[w.id] = st
        await self.ws.send(self._client_state("", w.fragment_id).SerializeToString())
        return await self._until_finished(t0)

    def _put(self, upload_url: str, name: str, data: bytes) -> None:
        if self.xsrf is None:
            with urllib.request.urlopen(self.url + "/_stcore/health", timeout=60) as r:
                cookie = next(c for c in r.headers.get_all("Set-Cookie") if c.startswith("_streamlit_xsrf="))
                self.xsrf = cookie.split(";", 1)[0].split("=", 1)[1]
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        url = upload_url if upload_url.startswith("http") else self.url + upload_url
        put = urllib.request.Request(url, data=body, method="PUT", headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": self.xsrf,
            "Cookie": f"_streamlit_xsrf={self.xsrf}"})
        with urllib.request.urlopen(put, timeout=600) as r:
            r.read()

    async def _until_finished(self, t0: float) -> Action:
        n = size = 0
        errors: list[str] = []
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=600)
            n += 1
            size += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = msg.new_session.page_script_hash
                self.session_id = msg.new_session.initialize.session_id or self.session_id
            elif kind == "navigation":  # st.navigation: the page this run drew (new_session may name another)
                self.page_hash = msg.navigation.page_script_hash
            elif kind == "delta":
                self._delta(msg, errors, t0)
            elif kind == "session_event" and msg.session_event.WhichOneof("type") == "script_compilation_exception":
                errors.append("compilation: " + msg.session_event.script_compilation_exception.message)
            elif kind == "script_finished":
                if msg.script_finished not in FINISHED:
                    if msg.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        continue  # a rerun replaced it: its own script_finished follows
                    errors.append(f"script_finished {ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)}")
                return Action(time.perf_counter() - t0, n, size, errors)

    def _delta(self, msg, errors: list[str], t0: float) -> None:
        d = msg.delta
        if d.WhichOneof("type") != "new_element":
            return
        el = d.new_element
        kind = el.WhichOneof("type")
        if kind == "exception":
            errors.append(f"exception: {el.exception.type}: {el.exception.message[:200]}")
            return
        if kind == "markdown" and self.first_verdict is None and any(
                v in el.markdown.body for v in ("ENFORCE", "REPORT_ONLY", "REFUSE_SINGLE", "PASS_CALIBRATION",
                                                "FAIL_CALIBRATION")):
            self.first_verdict = time.perf_counter() - t0
        inner = getattr(el, kind, None)
        wid = getattr(inner, "id", "") if inner is not None else ""
        if wid and hasattr(inner, "label"):
            self.widgets[kind, inner.label] = Widget(wid, kind, inner.label, d.fragment_id, inner)
