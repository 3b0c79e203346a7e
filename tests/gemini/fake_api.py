#!/usr/bin/env python3
"""A local stand-in for the Gemini API (generativelanguage v1beta), for running the real Gemini CLI
offline.

The Gemini CLI is pointed at it with GOOGLE_GEMINI_BASE_URL (and GEMINI_API_KEY, with
`security.auth.selectedType: "gemini-api-key"` in settings.json). Side requests (the model router's
classifier: plain `generateContent` with a JSON schema) always get a small answer filled in from the
schema. The agent's own requests (`streamGenerateContent`) follow SCRIPT, a comma-separated list, one
entry per `gemini` process (a request with no function response in it starts the next), the last
repeating:
  work   a `run_shell_command` call running WORK_COMMAND, then a final text answer
  503    HTTP 503 UNAVAILABLE "The model is overloaded."
  quota  HTTP 429 RESOURCE_EXHAUSTED with a RetryInfo of 3600s (a per-minute quota; the CLI does not
         retry a delay over 300 s and prints "Please retry in 3600s.")
  daily  HTTP 429 RESOURCE_EXHAUSTED on a per-day quota (the CLI: "You have exhausted your daily
         quota on this model.", no reset time)
  400    HTTP 400 INVALID_ARGUMENT "API key not valid."
Every agent request is logged to LOG (one JSON line: turn, kind). Prints the port on stdout once
listening.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = os.environ.get("SCRIPT", "work").split(",")
WORK = os.environ.get("WORK_COMMAND", "echo hello > hello.txt && goal verify -c 1")
LOG = os.environ.get("LOG")
USAGE = {"promptTokenCount": 900, "candidatesTokenCount": 25, "cachedContentTokenCount": 100,
         "totalTokenCount": 925}
state = {"turn": -1}
lock = threading.Lock()

QUOTA = "type.googleapis.com/google.rpc.QuotaFailure"
ERRORS = {
    "503": (503, {"code": 503, "message": "The model is overloaded. Please try again later.",
                  "status": "UNAVAILABLE"}),
    "quota": (429, {"code": 429, "status": "RESOURCE_EXHAUSTED",
                    "message": "You exceeded your current quota, please check your plan and billing details. Please retry in 3600s.",
                    "details": [{"@type": QUOTA, "violations": [{
                        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
                        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3600s"}]}),
    "daily": (429, {"code": 429, "status": "RESOURCE_EXHAUSTED",
                    "message": "You exceeded your current quota, please check your plan and billing details.",
                    "details": [{"@type": QUOTA, "violations": [{
                        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}),
    "400": (400, {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                  "status": "INVALID_ARGUMENT",
                  "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                               "domain": "googleapis.com"}]}),
}


def fill(schema):
    """A value that fits a JSON schema (the router's classifier asks for one)."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: fill(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind == "integer" or kind == "number":
        return 10
    if kind == "boolean":
        return False
    return "simple"


def candidate(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": USAGE, "modelVersion": "gemini-fake"}


def has_function_response(body):
    for c in body.get("contents") or []:
        for p in c.get("parts") or []:
            if "functionResponse" in p:
                return True
    return False


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

    def do_GET(self):
        self.reply(404, b"{}")

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith(":countTokens"):
            return self.reply(200, b'{"totalTokens": 10}')
        if not path.endswith(":streamGenerateContent"):
            schema = (body.get("generationConfig") or {}).get("responseJsonSchema")
            text = json.dumps(fill(schema)) if schema else "ok"
            return self.reply(200, json.dumps(candidate([{"text": text}])).encode())
        follow_up = has_function_response(body)
        with lock:
            if not follow_up:
                state["turn"] += 1
            turn = max(state["turn"], 0)
        mode = SCRIPT[min(turn, len(SCRIPT) - 1)]
        if LOG:
            with lock, open(LOG, "a") as f:
                f.write(json.dumps({"turn": turn, "kind": mode, "follow_up": follow_up}) + "\n")
        if mode in ERRORS:
            status, error = ERRORS[mode]
            return self.reply(status, json.dumps({"error": error}).encode())
        if follow_up:
            parts = [{"text": "Wrote hello.txt; goal verify passed."}]
        else:
            parts = [{"functionCall": {"name": "run_shell_command",
                                       "args": {"command": WORK, "description": "write and verify"}}}]
        chunk = "data: %s\r\n\r\n" % json.dumps(candidate(parts))
        return self.reply(200, chunk.encode(), "text/event-stream")


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
