#!/usr/bin/env python3
"""A local stand-in for the OpenAI chat completions API, for running the real aider CLI offline.

aider is pointed at it with `--model openai/fake-model` and OPENAI_API_BASE=http://127.0.0.1:PORT/v1.
Each `aider --message` process is one turn; a turn starts with a request whose messages hold no
earlier answer of ours, and the requests aider repeats by itself after an error belong to the turn
they repeat. SCRIPT, a comma-separated list, says how the server answers each turn in turn, the
last entry repeating:
  work      an edit in aider's "whole" format writing hello.txt (aider then runs its --test-cmd)
  401       HTTP 401 invalid_api_key "Incorrect API key provided: sk-offl****test. …"
  quota     HTTP 429 "You have hit your usage limit. Your quota will reset in 2 hours."
  overload  HTTP 529 "Overloaded"
Answers stream (SSE) when the request asks for it, else come as one JSON object. Every request is
logged to LOG (one JSON line: turn, kind, status). Prints the port on stdout once listening.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = os.environ.get("SCRIPT", "work").split(",")
LOG = os.environ.get("LOG")
state = {"turns": 0, "last_key": None, "last_status": 200}
lock = threading.Lock()

EDIT = "I will create hello.txt.\n\nhello.txt\n```\nhello\n```\n"
DONE = "Wrote hello.txt; goal verify passed."
USAGE = {"prompt_tokens": 200, "completion_tokens": 40, "total_tokens": 240}

ERRORS = {
    "401": (401, "invalid_request_error", "invalid_api_key",
            "Incorrect API key provided: sk-offl****test. You can find your API key at "
            "https://platform.openai.com/account/api-keys."),
    "quota": (429, "insufficient_quota", "rate_limit_exceeded",
              "You have hit your usage limit. Your quota will reset in 2 hours."),
    "overload": (529, "server_error", "overloaded", "Overloaded"),
}


def completion(text, stream):
    if not stream:
        return "application/json", json.dumps({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 1796000000,
            "model": "fake-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": USAGE}).encode()
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text},
                      "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": USAGE},
    ]
    out = ""
    for c in chunks:
        c.update({"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                  "created": 1796000000, "model": "fake-model"})
        out += "data: %s\n\n" % json.dumps(c)
    out += "data: [DONE]\n\n"
    return "text/event-stream", out.encode()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(200, b'{"object": "list", "data": []}')

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        if not self.path.split("?")[0].endswith("/chat/completions"):
            return self.reply(404, b'{"error": {"message": "not found"}}')
        messages = body.get("messages") or []
        # An answer of ours already in the conversation: aider is reflecting (test output fed
        # back) within the same turn.
        follow_up = any(m.get("role") == "assistant" and "hello.txt" in str(m.get("content"))
                        for m in messages)
        with lock:
            if not follow_up:
                key = json.dumps([m for m in messages if m.get("role") == "user"][-1:])
                if key != state["last_key"] or state["last_status"] == 200:
                    state["turns"] += 1
                state["last_key"] = key
            turn = state["turns"]
        mode = SCRIPT[min(max(turn - 1, 0), len(SCRIPT) - 1)]
        status = 200
        if mode in ERRORS and not follow_up:
            status, kind, code, text = ERRORS[mode]
            content_type, payload = "application/json", json.dumps(
                {"error": {"message": text, "type": kind, "param": None, "code": code}}).encode()
        else:
            content_type, payload = completion(DONE if follow_up else EDIT, bool(body.get("stream")))
        with lock:
            if not follow_up:
                state["last_status"] = status
            if LOG:
                with open(LOG, "a") as f:
                    f.write(json.dumps({"turn": turn, "kind": mode, "status": status,
                                        "follow_up": follow_up,
                                        "stream": bool(body.get("stream"))}) + "\n")
        return self.reply(status, payload, content_type)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
