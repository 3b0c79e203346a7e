#!/usr/bin/env python3
"""A local stand-in for the OpenAI Responses API, for running the real Codex CLI offline.

Codex is pointed at it with `openai_base_url = "http://127.0.0.1:PORT/v1"` in
$CODEX_HOME/config.toml. It first tries a WebSocket to /v1/responses: the stand-in answers 426
Upgrade Required, and codex falls back to HTTP with SSE at once. Each `codex exec` process is one
session (its `session-id` header); SCRIPT, a comma-separated list, says how the server answers each
session in turn, the last entry repeating:
  work   a custom tool call to `exec` (codex's JavaScript tool) running WORK_COMMAND through
         `tools.exec_command` with `login: false` (a login shell would take PATH from
         /etc/profile and lose the `goal` under test), then a final text answer
  429    HTTP 429 with no reset (codex: "exceeded retry limit, last status: 429 Too Many Requests")
  limit  HTTP 429 `usage_limit_reached` resetting RESET_S seconds from now (codex prints the reset as
         a local clock time); `limit-N` resets N seconds from now (a day or more away, codex prints
         a date and a time)
  401    HTTP 401 invalid_api_key
Every request is logged to LOG (one JSON line: session, turn, kind, status). Prints the port on
stdout once listening.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = os.environ.get("SCRIPT", "work").split(",")
WORK = os.environ.get("WORK_COMMAND", "echo hello > hello.txt && goal verify -c 1")
RESET_S = int(os.environ.get("RESET_S", "120"))
LOG = os.environ.get("LOG")
USAGE = {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 200},
         "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1230}
sessions = []
lock = threading.Lock()


def sse(events):
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()


def response(item, n):
    rid = "resp_%d" % n
    return sse([
        {"type": "response.created", "response": {"id": rid}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": rid, "usage": USAGE}},
    ])


def tool_call(n):
    js = "const r = await tools.exec_command({cmd: %s, login: false, tty: false, yield_time_ms: 30000});\n" \
         "text(r.output);\ntext('exit code ' + r.exit_code);\n" % json.dumps(WORK)
    return {"type": "custom_tool_call", "id": "ctc_%d" % n, "status": "completed",
            "call_id": "call_%d" % n, "name": "exec", "input": js}


def answer(text):
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def error(mode):
    if mode == "429":
        return 429, {"error": {"type": "rate_limit_exceeded", "message": "Rate limit reached", "code": None}}
    if mode.startswith("limit"):
        reset = int(mode[len("limit-"):]) if mode.startswith("limit-") else RESET_S
        return 429, {"error": {"type": "usage_limit_reached", "message": "The usage limit has been reached",
                               "plan_type": "plus", "resets_at": int(time.time()) + reset}}
    return 401, {"error": {"type": "invalid_request_error", "code": "invalid_api_key",
                           "message": "Incorrect API key provided: sk-offl****test. You can find your API key at https://platform.openai.com/account/api-keys."}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log(self, record):
        if LOG:
            with lock, open(LOG, "a") as f:
                f.write(json.dumps(record) + "\n")

    def do_GET(self):
        # The WebSocket attempt: refused at once, so codex falls back to HTTP with SSE.
        self.reply(426, b"")

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        if not self.path.split("?")[0].endswith("/responses"):
            return self.reply(404, b"{}")
        sid = self.headers.get("session-id") or "none"
        with lock:
            if sid not in sessions:
                sessions.append(sid)
            turn = sessions.index(sid)
        mode = SCRIPT[min(turn, len(SCRIPT) - 1)]
        self.log({"session": sid, "turn": turn, "kind": mode,
                  "authorization": bool(self.headers.get("authorization"))})
        if mode != "work":
            status, payload = error(mode)
            return self.reply(status, json.dumps(payload).encode())
        items = body.get("input") or []
        had_output = any(isinstance(i, dict) and i.get("type") == "custom_tool_call_output" for i in items)
        item = answer("Wrote hello.txt; goal verify passed.") if had_output else tool_call(len(items))
        return self.reply(200, response(item, len(items)), "text/event-stream")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
