"""The start-up checks as a dry run gives them: an ``api_base`` where nothing listens is a
warning of ``snakemake -n`` (one short connect) and a refusal of a real run; a server that answers as
llama.cpp without ``server: llama.cpp`` in its entry is named. The Snakefile-level path is
tests/config/test_refusals.py (slow)."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from workflow_scripts.workflow.providers import (
    CONNECT_TIMEOUT_S, DRY_RUN_CONNECT_TIMEOUT_S, detected_server, server_kind_hints, start_problems,
)

# GET /v1/models as each server answers it: llama-cpp-python 0.3.36 (llama_cpp/server/app.py),
# llama.cpp's llama-server (its README), OpenAI's API reference, vLLM's (owned_by "vllm").
LISTINGS = {
    "llama-cpp-python": ({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "me", "permissions": []}]},
                         "llama.cpp"),
    "llama-server": ({"object": "list", "data": [{"id": "m.gguf", "object": "model", "created": 1, "owned_by": "llamacpp",
                                                  "meta": {"n_ctx_train": 32768}}]}, "llama.cpp"),
    "openai": ({"object": "list", "data": [{"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "system"}]}, None),
    "vllm": ({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "vllm", "permission": [{}]}]}, None),
    "not-json": ("<html>hello</html>", None),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Listing:
    """A loopback server whose GET answers ``payload``."""

    def __init__(self, payload):
        body = (payload if isinstance(payload, str) else json.dumps(payload)).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.api_base = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("kind", sorted(LISTINGS))
def test_a_llama_cpp_server_is_detected_by_its_model_listing_only(kind):
    payload, expected = LISTINGS[kind]
    listing = Listing(payload)
    try:
        assert detected_server(listing.api_base) == expected
        config = {"models": {"m": {"litellm_model": "openai/m", "api_base": listing.api_base},
                             "set": {"litellm_model": "openai/m", "api_base": listing.api_base, "server": "llama.cpp"}}}
        hints = server_kind_hints(config, ["m", "set"])
        assert hints == ([] if expected is None else [hints[0]])
        assert all(h.startswith("models.m.server: the server at ") and "server: llama.cpp" in h for h in hints)
    finally:
        listing.close()


def test_nothing_listening_is_unknown_not_llama_cpp():
    assert detected_server(f"http://127.0.0.1:{free_port()}/v1") is None


def test_a_dry_run_warns_quickly_about_an_api_base_where_nothing_listens(monkeypatch):
    """Refused connect (closed loopback port) and no answer (a socket that never accepts): both are
    named with the field; the dry run's wait is its own short time-out, not the real run's 3 s."""
    monkeypatch.delenv("LLM_DILEMMAS_UNSET", raising=False)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(0)
    filler = socket.create_connection(silent.getsockname())  # fills the backlog: the next connect hangs
    try:
        config = {"models": {
            "closed": {"litellm_model": "openai/m", "api_base": f"http://127.0.0.1:{free_port()}/v1"},
            "silent": {"litellm_model": "openai/m", "api_base": f"http://127.0.0.1:{silent.getsockname()[1]}/v1"},
            "hosted": {"litellm_model": "openai/gpt-4o"},
        }}
        started = time.monotonic()
        problems = start_problems(config, ["closed", "silent", "hosted"], DRY_RUN_CONNECT_TIMEOUT_S)
        elapsed = time.monotonic() - started
    finally:
        filler.close()
        silent.close()
    assert [p.split(":")[0] for p in problems] == ["models.closed.api_base", "models.silent.api_base"]
    assert all("nothing listens at http://127.0.0.1:" in p for p in problems)
    assert DRY_RUN_CONNECT_TIMEOUT_S < CONNECT_TIMEOUT_S and elapsed < CONNECT_TIMEOUT_S
