#!/usr/bin/env python3
"""A local stand-in for the Anthropic Messages API, for running the real Claude Code CLI offline.

Claude Code is pointed at it with ANTHROPIC_BASE_URL. Each `claude -p` process is one session
(told apart by the session id Claude Code sends); SCRIPT, a comma-separated list, says how the
server answers each session in turn, the last entry repeating:
  work  a tool call to Bash running WORK_COMMAND, then a final text answer
  say   a final text answer at once (no tool call)
  529   HTTP 529 overloaded_error
  429   HTTP 429 rate_limit_error
  401   HTTP 401 authentication_error
Requests without tools (titles, quota checks) get a short text answer, except the judge's: a
Stop hook of type "prompt" (what Claude Code's `/goal <condition>` adds) asks a model without tools
whether its condition is met, and JUDGE, a comma-separated list (the last entry repeating), says
how each judge request in turn is answered:
  yes    {"ok": true}: the condition is met (a judge that accepts a bare claim)
  no     {"ok": false}: not met
  proof  met only when the transcript shows goal done's line "GOAL-PROOF: complete <goal> <tree>"
Judge requests are logged with kind "judge" and the verdict. Every request is logged
to LOG (one JSON line: session, kind, status, whether the request carries goal's injected block,
and the text of its last message). Prints the port on stdout once listening.
"""

import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = os.environ.get("SCRIPT", "work").split(",")
WORK = os.environ.get("WORK_COMMAND", "echo hello > hello.txt && goal verify -c 1")
LOG = os.environ.get("LOG")
JUDGE = os.environ.get("JUDGE", "yes").split(",")
judged = []
replies_sent = 0
sessions = []
lock = threading.Lock()


def session_of(handler, body):
    sid = handler.headers.get("x-claude-code-session-id")
    if not sid:
        user = (body.get("metadata") or {}).get("user_id") or ""
        m = re.search(r"session_([0-9a-f-]+)", user)
        sid = m.group(1) if m else "none"
    return sid


def text_of(message):
    """The text of one message (its text blocks and tool results), for the log."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    parts = []
    for c in content or []:
        if isinstance(c, dict):
            if isinstance(c.get("text"), str):
                parts.append(c["text"])
            elif isinstance(c.get("content"), str):
                parts.append(c["content"])
    return "\n".join(parts)


def is_judge(body):
    """A prompt hook's evaluation: no tools, and the hook evaluator's system prompt."""
    text = json.dumps(body.get("system") or "") + json.dumps(body.get("messages") or [])
    return "hook condition" in text or "stopping condition been satisfied" in text


# The proof line `goal done` prints: the condition's own wording (which quotes it) does not match.
PROOF = re.compile(r"GOAL-PROOF: complete .+? [0-9a-f]{40}")


def verdict(body):
    """The judge's answer to this request, by JUDGE."""
    with lock:
        n = len(judged)
        judged.append(n)
    mode = JUDGE[min(n, len(JUDGE) - 1)]
    transcript = json.dumps(body.get("messages") or [])
    if mode == "proof":
        met = PROOF.search(transcript) is not None
    else:
        met = mode == "yes"
    reason = "the condition holds" if met else "the condition is not met yet"
    return mode, met, json.dumps({"ok": met, "reason": reason})


def sse(events):
    out = []
    for e in events:
        out.append("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)))
    return "".join(out).encode()


def message(blocks, stop):
    # Each reply its own id: Claude Code merges replies that share one into a single message.
    global replies_sent
    replies_sent += 1
    events = [{"type": "message_start", "message": {"id": "msg_fake_%d" % replies_sent, "type": "message", "role": "assistant",
               "model": "claude-fake", "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}}]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            events.append({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}})
        else:
            events.append({"type": "content_block_start", "index": i,
                           "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": 5}})
    events.append({"type": "message_stop"})
    return sse(events)


ERRORS = {
    "529": (529, "overloaded_error", "Overloaded"),
    "429": (429, "rate_limit_error", "Rate limited"),
    "401": (401, "authentication_error", "invalid x-api-key"),
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        if status >= 400:
            self.send_header("x-should-retry", "false")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(200, b"{}")

    def do_HEAD(self):
        self.reply(200, b"")

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if not path.endswith("/v1/messages"):
            if path.endswith("/count_tokens"):
                return self.reply(200, b'{"input_tokens": 10}')
            return self.reply(200, b"{}")
        main = bool(body.get("tools"))
        sid = session_of(self, body)
        with lock:
            if main and sid not in sessions:
                sessions.append(sid)
            turn = sessions.index(sid) if sid in sessions else -1
        mode = SCRIPT[min(max(turn, 0), len(SCRIPT) - 1)] if main else "side"
        answer = "ok"
        met = None
        if not main and is_judge(body):
            mode = "judge"
            judge_mode, met, answer = verdict(body)
        status = 200
        if mode in ERRORS:
            status, kind, text = ERRORS[mode]
            payload = json.dumps({"type": "error", "error": {"type": kind, "message": text}}).encode()
        else:
            messages = body.get("messages") or []
            last = messages[-1] if messages else {}
            content = last.get("content")
            # A turn alternates a tool call and its answer: the answer is due when the last
            # assistant message made a tool call (Claude Code may append text of its own after
            # the tool result, as `/goal`'s turn does, so the last message alone does not say).
            replies = [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
            last_reply = replies[-1].get("content") if replies else None
            had_result = isinstance(last_reply, list) and bool(last_reply) and isinstance(
                last_reply[-1], dict) and last_reply[-1].get("type") == "tool_use"
            if mode in ("side", "say", "judge"):
                payload = message([{"type": "text", "text": answer}], "end_turn")
            elif had_result:
                payload = message([{"type": "text", "text": "Wrote hello.txt; goal verify passed."}], "end_turn")
            else:
                payload = message([{"type": "tool_use", "id": "toolu_%d" % len(messages), "name": "Bash",
                                    "input": {"command": WORK, "description": "write and verify"}}], "tool_use")
        if LOG:
            messages = body.get("messages") or []
            with lock, open(LOG, "a") as f:
                f.write(json.dumps({"session": sid, "turn": turn, "kind": mode, "status": status, "met": met,
                                    "stream": bool(body.get("stream")),
                                    "goal_block": "[goal-driven-loop] ACTIVE GOAL" in json.dumps(messages),
                                    "last_text": text_of(messages[-1]) if messages else ""}) + "\n")
        if status != 200:
            return self.reply(status, payload)
        if body.get("stream"):
            return self.reply(200, payload, "text/event-stream")
        # Non-streaming: the final message as one JSON object.
        return self.reply(200, json.dumps({"id": "msg_fake", "type": "message", "role": "assistant",
                                           "model": "claude-fake", "content": [{"type": "text", "text": answer}],
                                           "stop_reason": "end_turn", "stop_sequence": None,
                                           "usage": {"input_tokens": 10, "output_tokens": 1}}).encode())


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
