"""The OpenAI batch endpoints on the loopback stub (:mod:`tests.stub_server`), for batch mode's tests.

``POST /v1/files`` (multipart, purpose ``batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}``
and ``GET /v1/files/{id}/content``, as OpenAI's API documents them
(https://platform.openai.com/docs/api-reference/batch). A batch is ``validating`` when created,
``in_progress`` for :attr:`BatchStubServer.polls` retrievals, then ends. Each line is answered by the
stub's own ``/v1/chat/completions`` over HTTP (logged with outcome ``batch:answered``), so a batch
answer is what a synchronous call of the same body gets. Faults, set on the server:

- ``fail_every = k``: lines 0, k, 2k, ... (in the input file's order) go to the error file;
- ``status_every = k``: lines 1, 1 + k, 1 + 2k, ... stay in the output file with a non-200 status and an
  error body (as OpenAI writes a request the model endpoint rejected), never an answer;
- a batch removed from ``BatchState.batches`` (a test clears it) is unknown: its retrieval is a 404, as
  for a batch expired from the provider's storage;
- ``end_as = "expired"`` / ``"cancelled"``: the batch ends so, its output holding only the first
  ``keep`` lines;
- ``no_files = True``: an upload is a 404, as from a server without the files API.

Counters (``uploads``, ``created``, ``retrieved``) let tests check submissions independently of the
code under test.
"""

from __future__ import annotations

import email.parser
import json
import threading
import time
import urllib.request
from http.server import ThreadingHTTPServer

from tests.stub_server import Handler, StubServer


class BatchState:
    """Files and batches held by the stub, its faults and its counters."""

    def __init__(self):
        self.lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.uploads = self.created = self.retrieved = 0
        self.polls, self.fail_every, self.end_as, self.keep, self.no_files = 1, 0, None, 0, False
        self.status_every = 0

    def new_id(self, prefix: str) -> str:
        return f"{prefix}-{len(self.files) + len(self.batches) + 1}"


class BatchHandler(Handler):
    batches: BatchState
    base: str

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        if parts[:2] == ["v1", "batches"] and len(parts) == 3:
            return self._retrieve(parts[2])
        if parts[:2] == ["v1", "files"] and len(parts) == 4 and parts[3] == "content":
            data = self.batches.files[parts[2]]
            self.send_response(200)
            self.send_header("content-type", "application/octet-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return None
        return super().do_GET()

    def do_POST(self):
        if self.path.rstrip("/").endswith("/v1/files"):
            return self._upload()
        if self.path.rstrip("/").endswith("/v1/batches"):
            return self._create()
        return super().do_POST()

    def _upload(self):
        raw = self.rfile.read(int(self.headers["content-length"]))
        if self.batches.no_files:
            self._error(404, "unknown_url", "Unknown request URL: POST /v1/files", "no_files")
            return
        message = email.parser.BytesParser().parsebytes(
            b"content-type: " + self.headers["content-type"].encode() + b"\r\n\r\n" + raw)
        fields = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                  for part in message.get_payload()}
        state = self.batches
        with state.lock:
            state.uploads += 1
            file_id = state.new_id("file")
            state.files[file_id] = fields["file"]
        self._send(200, {"id": file_id, "object": "file", "bytes": len(fields["file"]), "created_at": int(time.time()),
                         "filename": "requests.jsonl", "purpose": fields["purpose"].decode(), "status": "processed"})

    def _create(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        state = self.batches
        with state.lock:
            state.created += 1
            batch_id = state.new_id("batch")
            state.batches[batch_id] = {
                "id": batch_id, "object": "batch", "endpoint": body["endpoint"], "input_file_id": body["input_file_id"],
                "completion_window": body["completion_window"], "status": "validating", "created_at": int(time.time()),
                "output_file_id": None, "error_file_id": None, "polls": 0,
                "request_counts": {"total": 0, "completed": 0, "failed": 0}}
        self._send(200, self._public(batch_id))

    def _public(self, batch_id: str) -> dict:
        return {k: v for k, v in self.batches.batches[batch_id].items() if k != "polls"}

    def _retrieve(self, batch_id: str):
        state = self.batches
        with state.lock:
            state.retrieved += 1
            batch = state.batches.get(batch_id)
            if batch is None:
                return self._error(404, None, f"No batch found with id '{batch_id}'.", "unknown_batch")
            batch["polls"] += 1
            ready = batch["status"] not in ("completed", "expired", "cancelled") and batch["polls"] > state.polls
            if batch["status"] == "validating" or not ready and batch["status"] == "in_progress":
                batch["status"] = "in_progress"
        if ready:
            self._run(batch)
        self._send(200, self._public(batch_id))

    def _run(self, batch: dict) -> None:
        """Answer every line of the batch through the stub's chat endpoint; write output and error files."""
        state = self.batches
        lines = [json.loads(line) for line in state.files[batch["input_file_id"]].decode().splitlines() if line]
        if state.end_as:
            lines = lines[: state.keep]
        output, errors = [], []
        for index, line in enumerate(lines):
            if state.fail_every and index % state.fail_every == 0:
                errors.append({"id": f"req-{index}", "custom_id": line["custom_id"], "response": None,
                               "error": {"code": "server_error", "message": "line failed"}})
                continue
            if state.status_every and index % state.status_every == 1 % state.status_every:
                output.append({"id": f"req-{index}", "custom_id": line["custom_id"], "error": None, "response": {
                    "status_code": 500, "request_id": f"r{index}",
                    "body": {"error": {"message": "The server had an error", "type": "server_error"}}}})
                continue
            output.append({"id": f"req-{index}", "custom_id": line["custom_id"], "error": None,
                           "response": {"status_code": 200, "request_id": f"r{index}", "body": self._chat(line["body"])}})
        with state.lock:
            for kind, rows in (("output_file_id", output), ("error_file_id", errors)):
                if rows:
                    file_id = state.new_id("file")
                    state.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                    batch[kind] = file_id
            batch["status"] = state.end_as or "completed"
            batch["request_counts"] = {"total": len(lines), "completed": len(output), "failed": len(errors)}

    def _chat(self, body: dict) -> dict:
        request = urllib.request.Request(f"{self.base}/chat/completions", json.dumps(body).encode(),
                                         {"content-type": "application/json", "x-stub-batch": "1"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


class BatchStubServer(StubServer):
    """:class:`~tests.stub_server.StubServer` with the batch endpoints (module docstring)."""

    def __init__(self, log, seed: int = 0):
        super().__init__(log, seed)
        self.server.server_close()
        self.batches = BatchState()
        handler = type("BoundBatchHandler", (BatchHandler,), {"stub": self.stub, "batches": self.batches})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        handler.base = self.api_base
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
