"""Batch mode at the wire: litellm's real files and batches code with its HTTP transport mocked (respx),
for every provider whose batch API litellm reaches (workflow_scripts/llm/batch/reach.py).

For each provider the test checks what litellm sends (URL, method, body of the upload, the batch
creation, the retrieval, the output and error downloads) and answers with the shapes of that
provider's API reference (the values are ours):

- OpenAI: https://platform.openai.com/docs/api-reference/batch (files, batch object, output and error
  lines ``{id, custom_id, response: {status_code, request_id, body}, error}``);
- Azure OpenAI: the same objects under ``/openai/...?api-version=`` (learn.microsoft.com, "Azure OpenAI
  global batch");
- xAI: https://docs.x.ai/docs/guides/batch (``batch_id``, ``state`` counters, paged ``results`` of
  ``{batch_request_id, batch_result: {response: {chat_get_completion: ...}} | {error}}``);
- Gemini Developer API: https://ai.google.dev/gemini-api/docs/batch-mode (resumable upload with
  ``X-Goog-Upload-URL``, ``models/{m}:batchGenerateContent``, ``batches/{id}`` operations with
  ``metadata.state`` ``BATCH_STATE_*``, ``output.responsesFile``, int64 counts as strings, the
  ``download/v1beta/files/{id}:download?alt=media`` route, usage ``promptTokens`` ...);
- Mistral: https://docs.mistral.ai/api/#tag/batch (``/v1/batch/jobs``, ``QUEUED`` / ``RUNNING`` /
  ``SUCCESS`` / ``TIMEOUT_EXCEEDED`` / ``CANCELLED``, ``output_file`` / ``error_file``).
- Vertex AI: https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.batchPredictionJobs
  (Cloud Storage upload, ``JOB_STATE_*``, ``outputInfo.gcsOutputDirectory``, ``predictions.jsonl`` rows
  with their ``response`` or error ``status``).

Three requests per batch with different prompts, each planted with its own answer (``L``, ``R``,
``R``), so a wrong custom-id-to-answer mapping shows; line 1 comes back with a non-200 status and
line 2 as an error line (error file, or an error result), so neither may be stored. Ended batches:
completed with those failures, expired and cancelled with only line 0 in their output.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
import respx

from workflow_scripts.llm.base import Request
from workflow_scripts.llm.batch.asking import BatchReport, Submission
from workflow_scripts.llm.caching.store import ResponseCache
from workflow_scripts.llm.spec import ModelSpec

KEY = "wire-test-key-0"
PROMPTS = ["The other agent chose L. L or R?", "The other agent chose R. L or R?", "It chose L, L. L or R?"]
ANSWERS = ["L", "R", "R"]
CREATED = 1_780_000_000


def requests_of(spec: ModelSpec) -> dict[str, Request]:
    asked = [Request([{"role": "user", "content": p}], 0, ("L", "R"), f"q{i}") for i, p in enumerate(PROMPTS)]
    return {spec.cache_key(r): r for r in asked}


def chat_body(model: str, text: str, usage: dict | None = None) -> dict:
    """An OpenAI chat.completion object (the body of an output line)."""
    return {"id": f"chatcmpl-{text}", "object": "chat.completion", "created": CREATED, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": usage or {"prompt_tokens": 20, "completion_tokens": 1, "total_tokens": 21}}


class FakeAPI:
    """A provider's batch API on respx: what it received (``seen``), the batch's end (``end``: completed,
    expired or cancelled), ``polls`` retrievals before it ends, ``gone``: every retrieval is a 404."""

    provider = ""
    model = ""
    entry: dict = {}

    def __init__(self, end: str = "completed"):
        self.end, self.polls, self.retrieved, self.gone = end, 1, 0, False
        self.seen: dict[str, list[httpx.Request]] = {}
        self.uploaded = b""
        self.ids: list[str] = []

    def note(self, kind: str, request: httpx.Request) -> None:
        self.seen.setdefault(kind, []).append(request)

    def lines(self) -> list[dict]:
        """The uploaded JSONL lines."""
        return [json.loads(line) for line in self.uploaded.decode().splitlines() if line.strip()]

    def outcome(self) -> tuple[list[dict], list[dict]]:
        """(output lines, error lines) as OpenAI writes them: line 0 answered, line 1 a non-200
        status in the output, line 2 in the error file; an expired or cancelled batch has line 0 only."""
        lines = self.lines()
        out = [{"id": "batch_req_0", "custom_id": lines[0]["custom_id"], "error": None,
                "response": {"status_code": 200, "request_id": "req-0", "body": self.body(0)}}]
        if self.end != "completed":
            return out, []
        out.append({"id": "batch_req_1", "custom_id": lines[1]["custom_id"], "error": None,
                    "response": {"status_code": 400, "request_id": "req-1",
                                 "body": {"error": {"message": "Invalid 'max_tokens'", "type": "invalid_request_error"}}}})
        errors = [{"id": "batch_req_2", "custom_id": lines[2]["custom_id"], "response": None,
                   "error": {"code": "server_error", "message": "The server had an error processing the request"}}]
        return out, errors

    def body(self, index: int) -> dict:
        return chat_body(self.model, ANSWERS[index])

    def ended(self) -> bool:
        self.retrieved += 1
        return self.retrieved > self.polls

    def run(self, tmp_path, monkeypatch, resumed_record: dict | None = None):
        """Run one :class:`Submission` of the three requests against this API; (spec, cache, report)."""
        import litellm

        for name, value in self.env().items():
            monkeypatch.setenv(name, value)
        # litellm's async clients otherwise send through aiohttp, which respx cannot see
        monkeypatch.setattr(litellm, "disable_aiohttp_transport", True)
        spec = ModelSpec.from_config("m", {"litellm_model": f"{self.provider}/{self.model}", "batch": True,
                                           "batch_poll_s": 0.001, "timeout": 10, "retry_backoff_s": 0.01, "retry_budget_s": 1, **self.entry})
        cache = ResponseCache(tmp_path / "cache")
        submission = Submission(spec, cache, "job", requests_of(spec))
        if resumed_record is not None:
            submission.record_path.parent.mkdir(parents=True)
            submission.record_path.write_text(json.dumps(resumed_record))
        report = BatchReport()
        with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
            self.mount(router)
            submission.run(report)
        return spec, cache, report

    def env(self) -> dict:
        return {"WIRE_KEY": KEY}

    def mount(self, router) -> None:
        raise NotImplementedError


class OpenAIAPI(FakeAPI):
    provider, model = "openai", "gpt-4o"
    entry = {"api_key_env": "WIRE_KEY"}
    base = "https://api.openai.com/v1"
    status = {"validating": "validating", "running": "in_progress", "completed": "completed",
              "expired": "expired", "cancelled": "cancelled"}
    create_path = "/batches"
    query = ""

    def url(self, path: str) -> str:
        return f"{self.base}{path}{self.query}"

    def mount(self, router) -> None:
        router.post(self.url("/files")).mock(side_effect=self.upload)
        router.post(self.url(self.create_path)).mock(side_effect=self.create)
        router.get(url__regex=rf"{re.escape(self.base)}/batches/[^/?]+(\?.*)?$").mock(side_effect=self.retrieve)
        router.get(url__regex=rf"{re.escape(self.base)}/files/[^/]+/content(\?.*)?$").mock(side_effect=self.content)

    def upload(self, request):
        self.note("upload", request)
        parts = _multipart(request)
        self.uploaded, self.purpose = parts["file"], parts["purpose"].decode()
        return httpx.Response(200, json={"id": "file-in", "object": "file", "bytes": len(self.uploaded),
                                         "created_at": CREATED, "filename": "requests.jsonl", "purpose": "batch"})

    def batch(self, status: str, output=None, errors=None) -> dict:
        counts = {"total": 3, "completed": 1 if status != "validating" else 0, "failed": 2 if errors else 0}
        return {"id": "batch_abc", "object": "batch", "endpoint": "/v1/chat/completions", "errors": None,
                "input_file_id": "file-in", "completion_window": "24h", "status": self.status[status],
                "output_file_id": output, "error_file_id": errors, "created_at": CREATED,
                "in_progress_at": None, "expires_at": CREATED + 86400, "completed_at": None, "failed_at": None,
                "expired_at": None, "cancelled_at": None, "request_counts": counts, "metadata": None}

    def create(self, request):
        self.note("create", request)
        return httpx.Response(200, json=self.batch("validating"))

    def retrieve(self, request):
        self.note("retrieve", request)
        if getattr(self, "unavailable", 0):
            self.unavailable -= 1
            return httpx.Response(503, json={"error": {"message": "The server is overloaded.", "type": "server_error"}})
        if self.gone:
            return httpx.Response(404, json={"error": {"message": "No batch found with id 'batch_abc'.",
                                                       "type": "invalid_request_error", "code": None}})
        if not self.ended():
            return httpx.Response(200, json=self.batch("running"))
        _, errors = self.outcome()
        return httpx.Response(200, json=self.batch(self.end, "file-out", "file-err" if errors else None))

    def content(self, request):
        self.note("content", request)
        output, errors = self.outcome()
        rows = output if "/file-out/" in request.url.path else errors
        return httpx.Response(200, content="".join(json.dumps(r) + "\n" for r in rows).encode())


class AzureAPI(OpenAIAPI):
    provider, model = "azure", "gpt-4o-batch"
    entry = {"api_key_env": "WIRE_KEY", "api_base": "https://lab.openai.azure.com"}
    base = "https://lab.openai.azure.com/openai"
    query = "?api-version=2025-03-01-preview"

    def env(self):
        return {"WIRE_KEY": KEY, "AZURE_API_VERSION": "2025-03-01-preview"}


class MistralAPI(OpenAIAPI):
    provider, model = "mistral", "mistral-small-latest"
    base = "https://api.mistral.ai/v1"
    create_path = "/batch/jobs"
    status = {"validating": "QUEUED", "running": "RUNNING", "completed": "SUCCESS", "expired": "TIMEOUT_EXCEEDED",
              "cancelled": "CANCELLED"}

    def mount(self, router) -> None:
        router.post(self.url("/files")).mock(side_effect=self.upload)
        router.post(self.url("/batch/jobs")).mock(side_effect=self.create)
        router.get(url__regex=rf"{re.escape(self.base)}/batch/jobs/[^/]+$").mock(side_effect=self.retrieve)
        router.get(url__regex=rf"{re.escape(self.base)}/files/[^/]+/content$").mock(side_effect=self.content)

    def batch(self, status: str, output=None, errors=None) -> dict:
        return {"id": "b6f1e7c2-job", "object": "batch", "input_files": ["file-in"], "metadata": None,
                "endpoint": "/v1/chat/completions", "model": self.model, "errors": [],
                "status": self.status[status], "created_at": CREATED, "total_requests": 3,
                "completed_requests": 0 if status == "validating" else 3, "succeeded_requests": 1,
                "failed_requests": 2 if errors else 0, "started_at": CREATED + 5,
                "completed_at": CREATED + 60 if output else None, "output_file": output, "error_file": errors}


class XAIAPI(FakeAPI):
    provider, model = "xai", "grok-4"
    entry = {"api_key_env": "WIRE_KEY"}
    base = "https://api.x.ai/v1"

    def mount(self, router) -> None:
        router.post(f"{self.base}/files").mock(side_effect=self.upload)
        router.post(f"{self.base}/batches").mock(side_effect=self.create)
        router.get(f"{self.base}/batches/batch_7c1d").mock(side_effect=self.retrieve)
        router.get(url__regex=rf"{re.escape(self.base)}/batches/batch_7c1d/results(\?.*)?$").mock(side_effect=self.content)

    def upload(self, request):
        self.note("upload", request)
        self.uploaded = _multipart(request)["file"]
        return httpx.Response(200, json={"id": "file_in", "bytes": len(self.uploaded), "created_at": CREATED,
                                         "filename": "requests.jsonl", "purpose": "batch"})

    def batch(self, pending: int, cancelled: bool = False) -> dict:
        done = 3 - pending
        state = {"num_requests": 3, "num_pending": pending, "num_success": 1 if done else 0,
                 "num_error": 2 if done == 3 and not cancelled else 0, "num_cancelled": 2 if cancelled else 0}
        return {"batch_id": "batch_7c1d", "name": "litellm-batch", "create_time": "2026-06-01T10:00:00Z",
                "expire_time": "2026-06-02T10:00:00Z", "cancel_time": "2026-06-01T10:05:00Z" if cancelled else None,
                "cancel_by_xai_message": None, "state": state, "input_file_id": "file_in"}

    def create(self, request):
        self.note("create", request)
        return httpx.Response(200, json=self.batch(3))

    def retrieve(self, request):
        self.note("retrieve", request)
        if not self.ended():
            return httpx.Response(200, json=self.batch(2))
        return httpx.Response(200, json=self.batch(0, cancelled=self.end == "cancelled"))

    def content(self, request):
        self.note("content", request)
        lines = self.lines()
        results = [{"batch_request_id": lines[0]["custom_id"],
                    "batch_result": {"response": {"chat_get_completion": self.body(0)}}}]
        if self.end == "completed":
            results.append({"batch_request_id": lines[1]["custom_id"],
                            "batch_result": {"error": {"code": 400, "message": "Invalid request"}}})
        return httpx.Response(200, json={"results": results, "pagination_token": None})


class GeminiAPI(FakeAPI):
    provider, model = "gemini", "gemini-2.5-pro"
    entry = {"api_key_env": "WIRE_KEY"}
    base = "https://generativelanguage.googleapis.com"
    states = {"validating": "BATCH_STATE_PENDING", "running": "BATCH_STATE_RUNNING", "completed": "BATCH_STATE_SUCCEEDED",
              "expired": "BATCH_STATE_EXPIRED", "cancelled": "BATCH_STATE_CANCELLED"}
    usage = {"promptTokens": 100, "completionTokens": 2, "totalTokens": 110}  # 8 thinking tokens

    def mount(self, router) -> None:
        router.post(f"{self.base}/upload/v1beta/files").mock(side_effect=self.start_upload)
        router.post(f"{self.base}/upload/v1beta/files/session-1").mock(side_effect=self.upload)
        router.post(f"{self.base}/v1beta/models/{self.model}:batchGenerateContent").mock(side_effect=self.create)
        router.get(f"{self.base}/v1beta/batches/b-123").mock(side_effect=self.retrieve)
        router.get(url__regex=rf"{re.escape(self.base)}/download/v1beta/files/out-9:download\?alt=media$").mock(
            side_effect=self.content)

    def start_upload(self, request):
        self.note("upload_start", request)
        return httpx.Response(200, headers={"X-Goog-Upload-URL": f"{self.base}/upload/v1beta/files/session-1",
                                            "X-Goog-Upload-Status": "active"})

    def upload(self, request):
        self.note("upload", request)
        self.uploaded = request.content
        return httpx.Response(200, json={"file": {
            "name": "files/in-1", "displayName": "requests.jsonl", "mimeType": "application/jsonl",
            "sizeBytes": str(len(self.uploaded)), "createTime": "2026-06-01T10:00:00.123456789Z",
            "updateTime": "2026-06-01T10:00:00.123456789Z", "expirationTime": "2026-06-03T10:00:00Z",
            "sha256Hash": "ZmFrZQ==", "uri": f"{self.base}/v1beta/files/in-1", "state": "ACTIVE", "source": "UPLOADED"}})

    def operation(self, status: str) -> dict:
        ended = status in ("completed", "expired", "cancelled")
        metadata = {"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
                    "model": f"models/{self.model}", "displayName": "litellm-in-1",
                    "inputConfig": {"fileName": "files/in-1"}, "createTime": "2026-06-01T10:00:01.5Z",
                    "updateTime": "2026-06-01T10:00:02Z", "state": self.states[status],
                    "batchStats": {"requestCount": "3", "successfulRequestCount": "1" if ended else "0",
                                   "failedRequestCount": "2" if status == "completed" else "0"}}
        if ended:
            metadata.update(endTime="2026-06-01T11:00:00Z", output={"responsesFile": "files/out-9"})
        return {"name": "batches/b-123", "metadata": metadata, **({"done": True} if ended else {})}

    def create(self, request):
        self.note("create", request)
        return httpx.Response(200, json=self.operation("validating"))

    def retrieve(self, request):
        self.note("retrieve", request)
        if self.gone:
            return httpx.Response(404, json={"error": {"code": 404, "message": "Batch not found.", "status": "NOT_FOUND"}})
        return httpx.Response(200, json=self.operation(self.end if self.ended() else "running"))

    def body(self, index: int) -> dict:
        return chat_body(self.model, ANSWERS[index], self.usage)

    def content(self, request):
        self.note("content", request)
        output, errors = self.outcome()
        failed = [{"custom_id": e["custom_id"], "response": {"status_code": 500, "body": {"error": e["error"]}}}
                  for e in errors]  # Gemini writes failed lines in the responses file
        return httpx.Response(200, content="".join(json.dumps(r) + "\n" for r in output + failed).encode())


class VertexAPI(FakeAPI):
    """Vertex AI batch prediction: the lines go to Cloud Storage (litellm turns them into Vertex requests
    carrying the custom id as a label), the job is a ``batchPredictionJobs`` resource (``JOB_STATE_*``,
    ``outputInfo.gcsOutputDirectory``), its ``predictions.jsonl`` holds each request with its
    ``response`` or its error ``status`` (no error file): https://cloud.google.com/vertex-ai/docs/
    reference/rest/v1/projects.locations.batchPredictionJobs. The OAuth token (google-auth) and the DNS
    lookup litellm makes before each job call are stubbed: neither is the batch path."""

    provider, model = "vertex_ai", "gemini-2.5-pro"
    entry: dict = {}
    jobs = "https://us-central1-aiplatform.googleapis.com/v1/projects/lab-project/locations/us-central1/batchPredictionJobs"
    states = {"validating": "JOB_STATE_PENDING", "running": "JOB_STATE_RUNNING", "completed": "JOB_STATE_SUCCEEDED",
              "expired": "JOB_STATE_EXPIRED", "cancelled": "JOB_STATE_CANCELLED"}

    def env(self) -> dict:
        return {"GCS_BUCKET_NAME": "lab-bucket", "VERTEXAI_PROJECT": "lab-project", "VERTEXAI_LOCATION": "us-central1"}

    def run(self, tmp_path, monkeypatch, resumed_record=None):
        import socket

        from litellm.llms.vertex_ai.vertex_llm_base import VertexBase

        def token(self, *args, **kwargs):
            return "ya29.lab-token", "lab-project"

        async def token_async(self, *args, **kwargs):
            return "ya29.lab-token", "lab-project"

        for name, fake in (("_ensure_access_token", token), ("get_access_token", token),
                           ("_ensure_access_token_async", token_async), ("get_access_token_async", token_async)):
            monkeypatch.setattr(VertexBase, name, fake)
        monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *a, **k: [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("142.250.0.10", port or 443))])
        return super().run(tmp_path, monkeypatch, resumed_record)

    def mount(self, router) -> None:
        router.post(url__regex=r"https://storage\.googleapis\.com/upload/storage/v1/b/lab-bucket/o\?").mock(side_effect=self.upload)
        router.post(self.jobs).mock(side_effect=self.create)
        router.get(f"{self.jobs}/777").mock(side_effect=self.retrieve)
        router.get(url__regex=r"https://storage\.googleapis\.com/storage/v1/b/lab-bucket/o/.*predictions\.jsonl\?alt=media$").mock(
            side_effect=self.content)

    def upload(self, request):
        self.note("upload", request)
        self.object = request.url.params["name"]
        self.uploaded = request.content
        return httpx.Response(200, json={"kind": "storage#object", "id": f"lab-bucket/{self.object}/1", "name": self.object,
                                         "bucket": "lab-bucket", "size": str(len(self.uploaded)),
                                         "contentType": "application/json", "timeCreated": "2026-06-01T10:00:00.000Z"})

    def lines(self) -> list[dict]:
        """The uploaded Vertex requests as (custom id, prompt) lines, in the shape of the other APIs."""
        rows = [json.loads(line) for line in self.uploaded.decode().splitlines() if line.strip()]
        return [{"custom_id": r["request"]["labels"]["litellm_custom_id"], "request": r["request"]} for r in rows]

    def job(self, status: str) -> dict:
        folder = f"gs://lab-bucket/{self.object.rsplit('/', 1)[0]}"
        job = {"name": "projects/123/locations/us-central1/batchPredictionJobs/777", "displayName": "litellm-vertex-batch",
               "model": f"projects/lab-project/locations/us-central1/publishers/google/models/{self.model}",
               "inputConfig": {"instancesFormat": "jsonl", "gcsSource": {"uris": [f"gs://lab-bucket/{self.object}"]}},
               "outputConfig": {"predictionsFormat": "jsonl", "gcsDestination": {"outputUriPrefix": folder}},
               "state": self.states[status], "createTime": "2026-06-01T10:00:01.000Z"}
        if status in ("completed", "expired", "cancelled"):
            job["outputInfo"] = {"gcsOutputDirectory": f"{folder}/prediction-model-2026-06-01T10:00:01.000Z"}
        return job

    def create(self, request):
        self.note("create", request)
        return httpx.Response(200, json=self.job("validating"))

    def retrieve(self, request):
        self.note("retrieve", request)
        if self.gone:
            return httpx.Response(404, json={"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})
        return httpx.Response(200, json=self.job(self.end if self.ended() else "running"))

    def content(self, request):
        self.note("content", request)
        lines = self.lines()
        rows = [{"status": "", "processed_time": "2026-06-01T10:30:00.000+00:00", "request": lines[0]["request"],
                 "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": ANSWERS[0]}]},
                                              "finishReason": "STOP"}],
                              "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 1, "totalTokenCount": 13},
                              "modelVersion": self.model, "responseId": "resp-0"}}]
        if self.end == "completed":
            rows += [{"status": "Bad Request: {\"error\": {\"code\": 400, \"message\": \"Invalid\", "
                                "\"status\": \"INVALID_ARGUMENT\"}}", "processed_time": "2026-06-01T10:30:00.000+00:00",
                      "request": line["request"], "response": None} for line in lines[1:]]
        return httpx.Response(200, content="".join(json.dumps(r) + "\n" for r in rows).encode())


def _multipart(request: httpx.Request) -> dict[str, bytes]:
    """The fields of a multipart/form-data body."""
    import email.parser

    message = email.parser.BytesParser().parsebytes(
        b"content-type: " + request.headers["content-type"].encode() + b"\r\n\r\n" + request.content)
    return {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
            for part in message.get_payload()}


APIS = [OpenAIAPI, AzureAPI, XAIAPI, GeminiAPI, MistralAPI, VertexAPI]


def stored_texts(spec, cache) -> list[str | None]:
    """The stored answer of each prompt, in prompt order (None where nothing is stored)."""
    texts = []
    for key in requests_of(spec):
        entry = cache.get(key)
        texts.append(None if entry is None else entry["response"]["text"])
    return texts


@pytest.mark.parametrize("api", APIS, ids=lambda a: a.provider)
def test_a_completed_batch_with_failed_lines_keeps_exactly_its_answered_line(api, tmp_path, monkeypatch):
    """Line 0 answered 'L' is stored under its own key; line 1 (status 400) and line 2 (error) are not."""
    fake = api()
    spec, cache, report = fake.run(tmp_path, monkeypatch)
    assert stored_texts(spec, cache) == ["L", None, None]
    assert (report.created, report.kept, report.unanswered) == (1, {"m": 1}, {"m": 2})
    record, = (json.loads(p.read_text()) for p in (tmp_path / "cache" / "batches").glob("*.json"))
    assert (record["status"], record["kept"]) == ("completed", 1)


@pytest.mark.parametrize("api", APIS[:-1], ids=lambda a: a.provider)
def test_what_litellm_sends_is_the_providers_documented_request(api, tmp_path, monkeypatch):
    """The upload holds one OpenAI batch line per request (custom_id = cache key, the synchronous body,
    the provider's model name); the creation names the uploaded file (and, for Gemini and Mistral,
    the model); every call carries the key the provider expects."""
    fake = api()
    spec, _, _ = fake.run(tmp_path, monkeypatch)
    lines = fake.lines()
    assert [line["custom_id"] for line in lines] == list(requests_of(spec))
    assert {(line["method"], line["url"]) for line in lines} == {("POST", "/v1/chat/completions")}
    assert [line["body"]["messages"][0]["content"] for line in lines] == PROMPTS
    assert {line["body"]["model"] for line in lines} == {fake.model}
    create = fake.seen["create"][0]
    assert create.method == "POST"
    body = json.loads(create.content)
    expected = {
        "openai": {"input_file_id": "file-in", "endpoint": "/v1/chat/completions", "completion_window": "24h"},
        "azure": {"input_file_id": "file-in", "endpoint": "/v1/chat/completions", "completion_window": "24h"},
        "xai": {"input_file_id": "file_in", "name": "litellm-batch"},
        "gemini": {"batch": {"display_name": "litellm-in-1", "input_config": {"file_name": "files/in-1"}}},
        "mistral": {"input_files": ["file-in"], "endpoint": "/v1/chat/completions", "model": fake.model},
    }[fake.provider]
    assert {k: body[k] for k in expected} == expected
    auth = {"gemini": ("x-goog-api-key", KEY), "azure": ("api-key", KEY)}.get(fake.provider, ("authorization", f"Bearer {KEY}"))
    for kind, requests in fake.seen.items():
        if (fake.provider, kind) != ("gemini", "upload"):  # Google's resumable session URL is itself the grant
            assert all(r.headers.get(auth[0]) == auth[1] for r in requests), (fake.provider, kind)
    assert len(fake.seen["retrieve"]) == 2 and {r.method for r in fake.seen["retrieve"]} == {"GET"}


@pytest.mark.parametrize("end", ["expired", "cancelled"])
@pytest.mark.parametrize("api", [OpenAIAPI, GeminiAPI, MistralAPI, XAIAPI, VertexAPI], ids=lambda a: a.provider)
def test_an_expired_or_cancelled_batch_keeps_the_answers_it_has(api, end, tmp_path, monkeypatch):
    if api is XAIAPI and end == "expired":
        pytest.skip("xAI batches have no expired state (counters only; litellm maps a cancel_time)")
    fake = api(end)
    spec, cache, report = fake.run(tmp_path, monkeypatch)
    assert stored_texts(spec, cache) == ["L", None, None] and report.kept == {"m": 1}
    record, = (json.loads(p.read_text()) for p in (tmp_path / "cache" / "batches").glob("*.json"))
    assert record["status"] == end and record["ended"] is True


@pytest.mark.parametrize("api", [OpenAIAPI, GeminiAPI, VertexAPI], ids=lambda a: a.provider)
def test_a_recorded_batch_the_provider_no_longer_knows_is_retired_and_asked_again(api, tmp_path, monkeypatch):
    """A record from an earlier run whose batch the provider answers 404: the record is moved aside
    (kept, never deleted), a new batch is submitted for the same requests and its answers stored."""
    fake = api()
    spec = ModelSpec.from_config("m", {"litellm_model": f"{fake.provider}/{fake.model}", **fake.entry})
    old_id = {OpenAIAPI: "batch_abc", GeminiAPI: "b-123", VertexAPI: "777"}[api]
    fake.gone = True
    first_retrieve = fake.retrieve

    def once_gone(request):  # the old batch is unknown; the new one (same id in this fake) is served
        response = first_retrieve(request)
        fake.gone = False
        return response

    fake.retrieve = once_gone
    record = {"batch_id": old_id, "input_file_id": "file-old", "model": "m", "status": "in_progress",
              "ended": False, "custom_ids": list(requests_of(spec))}
    spec, cache, report = fake.run(tmp_path, monkeypatch, resumed_record=record)
    assert (report.resumed, report.created) == (1, 1) and len(fake.seen["upload"]) >= 1
    assert stored_texts(spec, cache) == ["L", None, None]
    names = sorted(p.name for p in (tmp_path / "cache" / "batches").iterdir())
    assert len(names) == 2 and any(".retired-" in n for n in names)


@pytest.mark.parametrize("api", [OpenAIAPI, AzureAPI], ids=lambda a: a.provider)
def test_polling_through_503s_raised_as_the_openai_clients_classes_goes_on(api, tmp_path, monkeypatch):
    """Three polls answered 503 (the OpenAI client raises its own InternalServerError on this path,
    not litellm's class): each is a transient error, polled again; the batch ends and is stored."""
    fake = api()
    fake.unavailable = 3
    spec, cache, _ = fake.run(tmp_path, monkeypatch)
    assert len(fake.seen["retrieve"]) == 3 + 2 and stored_texts(spec, cache) == ["L", None, None]


def test_a_vertex_batch_sends_vertex_requests_labelled_with_each_custom_id(tmp_path, monkeypatch):
    """litellm turns each OpenAI line into a Vertex request (contents, generationConfig with the seed)
    carrying its custom id as labels, uploads them to the configured bucket, and
    creates the job on the model from the file's path, output beside the input."""
    fake = VertexAPI()
    spec, _, _ = fake.run(tmp_path, monkeypatch)
    rows = [json.loads(line) for line in fake.uploaded.decode().splitlines()]
    # a label value holds at most 63 characters: the 64-character key is cut there, and carried whole
    # (encoded) in litellm_custom_id_raw, from which the output lines get it back (the stored answers
    # of the other tests are found under the whole keys)
    assert [r["request"]["labels"]["litellm_custom_id"] for r in rows] == [k[:63] for k in requests_of(spec)]
    assert all(r["request"]["labels"]["litellm_custom_id_raw"] for r in rows)
    assert [r["request"]["contents"][0]["parts"][0]["text"] for r in rows] == PROMPTS
    sent = [spec.request_params(list(r.messages), r.replicate, r.options) for r in requests_of(spec).values()]
    assert [r["request"]["generationConfig"].get("seed") for r in rows] == [p["seed"] for p in sent]
    job = json.loads(fake.seen["create"][0].content)
    assert job["inputConfig"]["gcsSource"]["uris"] == [f"gs://lab-bucket/{fake.object}"]
    assert job["model"].endswith("publishers/google/models/gemini-2.5-pro")
    assert {r.headers["authorization"] for k in ("create", "retrieve") for r in fake.seen[k]} == {"Bearer ya29.lab-token"}


def test_a_gemini_batch_answer_is_priced_from_its_usage_at_the_batch_prices(tmp_path, monkeypatch):
    """Gemini writes promptTokens 100, completionTokens 2, totalTokens 110: the 8 thinking tokens are
    billed as output. gemini-2.5-pro's batch prices in litellm's map: 6.25e-7 / 5e-6 USD per token:
    100 x 6.25e-7 + 10 x 5e-6 = 1.125e-4 USD."""
    spec, cache, _ = GeminiAPI().run(tmp_path, monkeypatch)
    entry = cache.get(next(iter(requests_of(spec))))
    assert entry["usage"]["completion_tokens"] == 10
    assert entry["cost_usd"] == pytest.approx(100 * 6.25e-7 + 10 * 5e-6)


def test_a_gemini_batch_is_created_for_the_model_named_on_every_call(tmp_path, monkeypatch):
    """Without model= litellm refuses Gemini's batches; with it the job URL names the model and the
    retrieval and download carry the key (x-goog-api-key) litellm found through the model."""
    fake = GeminiAPI()
    fake.run(tmp_path, monkeypatch)
    assert fake.seen["create"][0].url.path == "/v1beta/models/gemini-2.5-pro:batchGenerateContent"
    start = fake.seen["upload_start"][0]
    assert start.headers["x-goog-upload-protocol"] == "resumable" and start.headers["x-goog-upload-command"] == "start"
    assert fake.seen["upload"][0].headers["x-goog-upload-command"] == "upload, finalize"
    assert parse_qs(urlparse(str(fake.seen["content"][0].url)).query) == {"alt": ["media"]}
