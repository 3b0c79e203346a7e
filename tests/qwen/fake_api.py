#!/usr/bin/env python3
"""A local stand-in for the OpenAI chat completions API, for running the real Qwen Code CLI offline.

qwen is pointed at it with `--auth-type openai`-style settings: OPENAI_BASE_URL=http://127.0.0.1:PORT/v1,
OPENAI_API_KEY and OPENAI_MODEL. Each `qwen` process is one turn; a turn starts with a request whose
messages hold no tool result yet, and the requests qwen repeats by itself after an error belong to
the turn they repeat. SCRIPT, a comma-separated list, says how the server answers each turn in
turn, the last entry repeating:
  work   a tool call to `run_shell_command` running WORK_COMMAND, then a final text answer
  401    HTTP 401 invalid_api_key "Incorrect API key provided: …"
  500    HTTP 500 server_error "The server had an error while processing your request."
  503    HTTP 503 "Service Unavailable" with `retry-after: 1`, so qwen's own 7 tries take seconds
  quota  HTTP 429 insufficient_quota "You exceeded your current quota, please check your plan and
         billing details." with `retry-after: 1`
Requests without tools (qwen's side calls) get a short text answer. Answers stream (SSE) when the
request asks for it, else come as one JSON object. Every request is logged to LOG (one JSON line:
turn, kind, status, follow_up). Prints the port on stdout once listening.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = os.environ.get("SCRIPT", "work").split(",")
WORK = os.environ.get("WORK_COMMAND", "echo hello > hello.txt && goal verify -c 1")
LOG = os.environ.get("LOG")
state = {"turns": 0, "last_key": None, "last_status": 200}
lock = threading.Lock()

DONE = "Wrote hello.txt; goal verify passed."
# Token counts reported in every answer (10 of the prompt's cached).
USAGE = {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320,
         "prompt_tokens_details": {"cached_tokens": 10}}

# status, type, code, message (and the headers, after them in HEADERS).
HEADERS = {"503": {"retry-after": "1"}, "quota": {"retry-after": "1"}}
ERRORS = {
    "401": (401, "invalid_request_error", "invalid_api_key",
            "Incorrect API key provided: sk-offl****test. You can find your API key at "
            "https://platform.openai.com/account/api-keys."),
    "500": (500, "server_error", None,
            "The server had an error while processing your request. Sorry about that!"),
    "503": (503, "server_error", None, "Service Unavailable"),
    "quota": (429, "insufficient_quota", "insufficient_quota",
              "You exceeded your current quota, please check your plan and billing details."),
}


def completion(text, tool, stream):
    """A chat completion answering `text`, or calling `run_shell_command` when `tool` is set."""
    if tool:
        call = {"id": "call_%s" % tool, "type": "function", "function": {
            "name": "run_shell_command",
            "arguments": json.dumps({"command": WORK, "description": "write and verify",
                                     "is_background": False})}}
        message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": text}, "stop"
    base = {"id": "chatcmpl-fake", "created": 1796000000, "model": "fake-model"}
    if not stream:
        return "application/json", json.dumps(dict(
            base, object="chat.completion", usage=USAGE,
            choices=[{"index": 0, "message": message, "finish_reason": finish}])).encode()
    delta = dict(message)
    if tool:
        delta["tool_calls"] = [dict(c, index=0) for c in message["tool_calls"]]
    chunks = [
        {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {"choices": [], "usage": USAGE},
    ]
    out = "".join("data: %s\n\n" % json.dumps(dict(base, object="chat.completion.chunk", **c))
                  for c in chunks)
    return "text/event-stream", (out + "data: [DONE]\n\n").encode()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json", headers=None):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(200, b'{"object": "list", "data": [{"id": "fake-model", "object": "model"}]}')

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        if not self.path.split("?")[0].endswith("/chat/completions"):
            return self.reply(404, b'{"error": {"message": "not found"}}')
        messages = body.get("messages") or []
        follow_up = any(m.get("role") == "tool" for m in messages)
        main = bool(body.get("tools"))
        with lock:
            if main and not follow_up:
                key = json.dumps([m for m in messages if m.get("role") == "user"][:1])
                # A request that repeats the last one is qwen retrying it by itself.
                if key != state["last_key"] or state["last_status"] == 200:
                    state["turns"] += 1
                state["last_key"] = key
            turn = state["turns"]
        mode = SCRIPT[min(max(turn - 1, 0), len(SCRIPT) - 1)] if main else "side"
        status = 200
        if mode in ERRORS and not follow_up:
            status, kind, code, text = ERRORS[mode]
            content_type, payload = "application/json", json.dumps(
                {"error": {"message": text, "type": kind, "param": None, "code": code}}).encode()
        elif mode == "side":
            content_type, payload = completion("Say hello", None, bool(body.get("stream")))
        else:
            content_type, payload = completion(DONE if follow_up else None,
                                               None if follow_up else str(len(messages)),
                                               bool(body.get("stream")))
        with lock:
            if main and not follow_up:
                state["last_status"] = status
            if LOG:
                with open(LOG, "a") as f:
                    f.write(json.dumps({"turn": turn, "kind": mode, "status": status,
                                        "follow_up": follow_up,
                                        "stream": bool(body.get("stream"))}) + "\n")
        return self.reply(status, payload, content_type, HEADERS.get(mode) if status != 200 else None)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
