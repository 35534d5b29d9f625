"""A stand-in for an engine's program, for the tests of the server process (tests/llm/serving/test_server.py).

Run as the engine's executable (``serve.launcher: [python]``, ``serve.executable: tests/fake_engine.py``):

- ``fake_engine.py -c CODE`` (the release check) prints ``$FAKE_ENGINE_VERSION`` (default 0.3.36);
- ``fake_engine.py -m MODULE ... --port P --model_alias NAME`` serves ``GET /v1/models`` on 127.0.0.1:P,
  as ``$FAKE_ENGINE_MODE`` says: ``serve`` lists NAME after ``$FAKE_ENGINE_DELAY`` seconds (default
  0.5); ``crash`` exits with code 3 after 0.5 s without listening; ``other`` answers but lists another
  model forever (up, not ready: what vLLM's ``/health`` would call healthy); ``die_after=<s>`` lists
  NAME, then exits with code 4 after s seconds.

Every start appends a line to ``$FAKE_ENGINE_STARTS`` (if set), so a test can count engine starts.
"""

from __future__ import annotations

import http.server
import json
import os
import sys
import threading
import time


def main(argv: list[str]) -> int:
    if argv[:1] == ["-c"]:
        print(os.environ.get("FAKE_ENGINE_VERSION", "0.3.36"))
        return 0
    if os.environ.get("FAKE_ENGINE_STARTS"):
        with open(os.environ["FAKE_ENGINE_STARTS"], "a", encoding="utf-8") as starts:
            starts.write(" ".join(argv) + "\n")
    port, name = int(argv[argv.index("--port") + 1]), argv[argv.index("--model_alias") + 1]
    mode = os.environ.get("FAKE_ENGINE_MODE", "serve")
    if mode == "crash":
        time.sleep(0.5)
        return 3
    listed = name if mode != "other" else "another-model"
    ready_at = time.monotonic() + float(os.environ.get("FAKE_ENGINE_DELAY", "0.5"))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the library's name)
            data = [{"id": listed, "object": "model"}] if time.monotonic() >= ready_at else []
            body = json.dumps({"object": "list", "data": data}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if mode.startswith("die_after="):
        time.sleep(float(mode.split("=", 1)[1]))
        return 4
    while True:
        time.sleep(1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
