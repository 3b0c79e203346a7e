#!/usr/bin/env python3
"""A local stand-in for the Anthropic Messages API, for running the real opencode CLI offline.

opencode is pointed at it by a provider in its config (`"npm": "@ai-sdk/anthropic"`,
`options.baseURL` = http://127.0.0.1:PORT/v1). Each `opencode run` process is one turn; a turn
starts with a request whose last message is the user's prompt (not a tool result), and the
requests opencode repeats by itself after an error belong to the turn they repeat. SCRIPT, a
comma-separated list, says how the server answers each turn in turn, the last entry repeating:
  work    a tool call to `bash` running WORK_COMMAND, then a final text answer
  529     HTTP 529 overloaded_error (with `retry-after-ms: 10`, so opencode's own retries are quick)
  401     HTTP 401 authentication_error `invalid x-api-key`
  403     HTTP 403 permission_error
  spend   HTTP 400 "You have reached your specified API usage limits. You will regain access on
          <SPEND_DAY, default tomorrow> at 00:00 UTC."
  wait    HTTP 429 rate_limit_error with `retry-after: 86400`: opencode sleeps inside the turn
Requests without tools (titles) get a short text answer. Every request is logged to LOG (one JSON
line: turn, kind, status). Prints the port on stdout once listening.
"""

import datetime
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = os.environ.get("SCRIPT", "work").split(",")
WORK = os.environ.get("WORK_COMMAND", "echo hello > hello.txt && goal verify -c 1")
LOG = os.environ.get("LOG")
state = {"turns": 0, "last_key": None}
lock = threading.Lock()

# Token counts reported in every answer: opencode sums them into its step_finish events.
USAGE = {"input_tokens": 120, "output_tokens": 30, "cache_read_input_tokens": 7,
         "cache_creation_input_tokens": 0}


def sse(events):
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()


def message(blocks, stop):
    events = [{"type": "message_start", "message": {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": dict(USAGE, output_tokens=1)}}]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            events.append({"type": "content_block_start", "index": i,
                           "content_block": {"type": "text", "text": ""}})
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "text_delta", "text": b["text"]}})
        else:
            events.append({"type": "content_block_start", "index": i, "content_block": {
                "type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
            events.append({"type": "content_block_delta", "index": i, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": USAGE["output_tokens"]}})
    events.append({"type": "message_stop"})
    return sse(events)


# The day access returns: SPEND_DAY, else tomorrow (UTC), so the reset is always ahead.
SPEND_DAY = os.environ.get("SPEND_DAY") or (
    datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).strftime("%Y-%m-%d")
SPEND = ("You have reached your specified API usage limits. "
         "You will regain access on %s at 00:00 UTC." % SPEND_DAY)
ERRORS = {
    "529": (529, "overloaded_error", "Overloaded", {"retry-after-ms": "10"}),
    "401": (401, "authentication_error", "invalid x-api-key", {}),
    "403": (403, "permission_error",
            "Your API key does not have permission to use the specified resource.", {}),
    "spend": (400, "invalid_request_error", SPEND, {}),
    "wait": (429, "rate_limit_error", "Number of requests has exceeded your rate limit.",
             {"retry-after": "86400"}),
}


def turn_key(messages):
    """What identifies one turn's conversation: its first user message."""
    first = messages[0] if messages else {}
    return json.dumps(first.get("content"), sort_keys=True)


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
        self.reply(200, b"{}")

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        if not self.path.split("?")[0].endswith("/messages"):
            return self.reply(200, b"{}")
        messages = body.get("messages") or []
        last = messages[-1] if messages else {}
        content = last.get("content")
        had_result = isinstance(content, list) and any(
            isinstance(c, dict) and c.get("type") == "tool_result" for c in content)
        main = bool(body.get("tools"))
        with lock:
            if main and not had_result:
                key = turn_key(messages)
                # A request that repeats the last one is opencode retrying it by itself.
                if key != state["last_key"] or state.get("last_status") == 200:
                    state["turns"] += 1
                state["last_key"] = key
            turn = state["turns"]
        mode = SCRIPT[min(max(turn - 1, 0), len(SCRIPT) - 1)] if main else "side"
        status, headers = 200, {}
        if mode in ERRORS and not had_result:
            status, kind, text, headers = ERRORS[mode]
            payload = json.dumps({"type": "error", "error": {"type": kind, "message": text}}).encode()
        elif mode == "side":
            payload = message([{"type": "text", "text": "Say hello"}], "end_turn")
        elif had_result:
            payload = message([{"type": "text", "text": "Wrote hello.txt; goal verify passed."}],
                              "end_turn")
        else:
            payload = message([{"type": "tool_use", "id": "toolu_%d" % len(messages), "name": "bash",
                                "input": {"command": WORK, "description": "write and verify"}}],
                              "tool_use")
        with lock:
            if main and not had_result:
                state["last_status"] = status
            if LOG:
                with open(LOG, "a") as f:
                    f.write(json.dumps({"turn": turn, "kind": mode, "status": status,
                                        "stream": bool(body.get("stream"))}) + "\n")
        if status != 200:
            return self.reply(status, payload, headers=headers)
        if body.get("stream"):
            return self.reply(200, payload, "text/event-stream")
        return self.reply(200, json.dumps({
            "id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
            "content": [{"type": "text", "text": "Say hello"}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": USAGE}).encode())


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
