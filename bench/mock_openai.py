"""A small OpenAI-compatible chat server for tests and benchmarks (loopback only).

It answers ``POST /v1/chat/completions`` with a scripted reply after a fixed
latency, and can inject faults: a share of 429 (with ``Retry-After``) and 500
responses, a share of requests that hang past the client's timeout, and a
share of malformed replies (``bad_reply``: null content, an empty ``choices``
list, a body that is not JSON, an HTML error page with status 200 or 502).
Written on asyncio streams with HTTP/1.1 keep-alive so that one core serves
thousands of requests per second.

Run it by hand: ``python bench/mock_openai.py --port 8765 --latency 0.05``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def default_reply(prompt: str) -> str:
    """A fair answer to the shipped templates: 'No' or an equal probability."""
    if "probability" in prompt:
        return '{"probability": 50.0}'
    return "No, I don't think so."


@dataclass
class MockConfig:
    latency: float = 0.0
    fail_rate: float = 0.0  # share of requests answered 429 or 500
    fail_first: int = 0  # the first N chat requests are answered 429 (a provider's rate limit kicking in)
    hang_rate: float = 0.0  # share of requests that never answer in time
    hang_seconds: float = 30.0
    retry_after: float | None = 0.05  # Retry-After on 429 (None: no header)
    seed: int = 0
    reply: Callable[[str], str] = default_reply
    reply_messages: Callable[[list[dict[str, Any]]], str] | None = None  # sees every message (system prompts)
    bad_reply: str = ""  # one of BAD_REPLIES: how the malformed share is answered
    bad_rate: float = 1.0  # share of requests answered with bad_reply (when it is set)
    # batch API (POST /files, POST /batches, GET /batches/{id}, GET /files/{id}/content)
    batch_polls: int = 1  # looks at a batch before it completes
    batch_fail_rate: float = 0.0  # share of a batch's requests answered with an error line
    batch_end: str = "completed"  # how a batch ends: completed, expired (half answered) or failed (none)
    status: int = 0  # answer every chat request with this status (401 a wrong key, 404 a wrong model)


HTML_PAGE = (b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>"
             b"<p>The upstream server did not answer.</p></body></html>")
#: Malformed replies: (status, content type, body); a body of None is a chat completion with that defect.
BAD_REPLIES: dict[str, tuple[int, str, bytes | None]] = {
    "null_content": (200, "application/json", None),
    "no_choices": (200, "application/json", None),
    "invalid_json": (200, "application/json", b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "No'),
    "html_200": (200, "text/html; charset=utf-8", HTML_PAGE),
    "html_502": (502, "text/html; charset=utf-8", HTML_PAGE),
}


@dataclass
class MockStats:
    requests: int = 0
    status: Counter[int] = field(default_factory=Counter)
    hung: int = 0
    bad: int = 0  # malformed replies sent
    last_payloads: list[dict[str, Any]] = field(default_factory=list)  # the most recent 100 bodies
    authorization: set[str] = field(default_factory=set)
    uploads: int = 0
    batches_created: int = 0
    batch_polls: int = 0
    chat: int = 0  # interactive chat completions answered


def completion(n: int, model: str, prompt: str, text: str) -> dict[str, Any]:
    """A chat completion body as the OpenAI API sends it, with token counts of about 4 characters each."""
    tokens_in, tokens_out = max(1, len(prompt) // 4), max(1, len(text) // 4)
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }


class MockOpenAI:
    """The server; ``start()`` runs it on a background thread, ``stop()`` ends it."""

    def __init__(self, config: MockConfig | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        assert host.startswith("127.") or host in ("localhost", "::1"), "loopback only"
        self.config = config or MockConfig()
        self.host, self.port = host, port
        self.stats = MockStats()
        self._rng = random.Random(self.config.seed)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    async def _respond(self, writer: asyncio.StreamWriter, status: int, body: bytes,
                       headers: dict[str, str] | None = None, content_type: str = "application/json") -> None:
        reason = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error",
                  502: "Bad Gateway"}[status]
        head = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {content_type}",
                f"Content-Length: {len(body)}", "Connection: keep-alive"]
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            while True:
                try:  # the whole head in one read: the mock must leave the CPU to the client under test
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    break
                lines = head.decode("latin-1").split("\r\n")
                length = 0
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    name = name.strip().lower()
                    headers[name] = value.strip()
                    if name == "content-length":
                        length = int(value.strip())
                    elif name == "authorization":
                        self.stats.authorization.add(value.strip())
                body = await reader.readexactly(length) if length else b""
                if "/chat/completions" in lines[0]:
                    await self._answer(lines[0], body, writer)
                else:
                    await self._batch_api(lines[0], headers, body, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            if task is not None:
                self._handlers.discard(task)

    def _reply_text(self, payload: dict[str, Any]) -> str:
        prompt = payload.get("messages", [{}])[-1].get("content", "")
        if self.config.reply_messages is not None:
            return self.config.reply_messages(list(payload.get("messages", [])))
        return self.config.reply(prompt if isinstance(prompt, str) else json.dumps(prompt))

    async def _batch_api(self, request_line: str, headers: dict[str, str], body: bytes,
                         writer: asyncio.StreamWriter) -> None:
        """The files and batches endpoints of the OpenAI API, enough for ``langbite run --batch``."""
        self.stats.requests += 1
        method, path = request_line.split(" ")[:2]
        path = path.split("?")[0].removeprefix("/v1")
        c = self.config
        if method == "POST" and path == "/files":
            boundary = headers.get("content-type", "").partition("boundary=")[2].strip('"').encode()
            content = b""
            for part in body.split(b"--" + boundary):
                head, _, data = part.partition(b"\r\n\r\n")
                if b'name="file"' in head:
                    content = data.removesuffix(b"\r\n")
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = content
            self.stats.uploads += 1
            return await self._json(writer, {"id": file_id, "object": "file", "purpose": "batch", "bytes": len(content),
                                             "created_at": 0, "filename": "batch.jsonl", "status": "processed"})
        if method == "POST" and path == "/batches":
            request = json.loads(body or b"{}")
            batch_id = f"batch-{len(self.batches) + 1}"
            self.batches[batch_id] = {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions",
                                      "input_file_id": request.get("input_file_id"), "completion_window": "24h",
                                      "status": "validating", "created_at": 0, "output_file_id": None,
                                      "error_file_id": None, "polls": 0}
            self.stats.batches_created += 1
            return await self._json(writer, self._public(self.batches[batch_id]))
        if method == "GET" and path.startswith("/batches/"):
            batch = self.batches.get(path.rsplit("/", 1)[1])
            if batch is None:
                return await self._respond(writer, 404, b'{"error": {"message": "no such batch"}}')
            self.stats.batch_polls += 1
            batch["polls"] += 1
            if batch["status"] not in ("completed", "expired", "failed") and batch["polls"] > c.batch_polls:
                self._finish(batch)
            elif batch["status"] == "validating":
                batch["status"] = "in_progress"
            return await self._json(writer, self._public(batch))
        if method == "GET" and path.startswith("/files/") and path.endswith("/content"):
            data = self.files.get(path.split("/")[2])
            if data is None:
                return await self._respond(writer, 404, b'{"error": {"message": "no such file"}}')
            return await self._respond(writer, 200, data, content_type="application/octet-stream")
        self.stats.status[404] += 1
        await self._respond(writer, 404, b'{"error": {"message": "not found"}}')

    def _finish(self, batch: dict[str, Any]) -> None:
        """Answer a batch's requests: some with errors (batch_fail_rate), half if it expires, none if it fails."""
        c = self.config
        lines = [json.loads(x) for x in self.files[batch["input_file_id"]].splitlines() if x.strip()]
        if c.batch_end == "expired":
            lines = lines[: len(lines) // 2]
        elif c.batch_end == "failed":
            lines = []
        out, err = [], []
        for n, line in enumerate(lines):
            custom_id = line["custom_id"]
            if self._rng.random() < c.batch_fail_rate:
                err.append({"id": f"req-{n}", "custom_id": custom_id, "response": {"status_code": 500, "body": {
                    "error": {"message": "injected batch fault"}}}, "error": None})
                continue
            text = self._reply_text(line["body"])
            prompt = line["body"]["messages"][-1]["content"]
            out.append({"id": f"req-{n}", "custom_id": custom_id, "response": {
                "status_code": 200, "body": completion(n, line["body"].get("model", "mock"), prompt, text)},
                "error": None})
        for name, records in (("output_file_id", out), ("error_file_id", err)):
            if records:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in records).encode()
                batch[name] = file_id
        batch["status"] = c.batch_end

    @staticmethod
    def _public(batch: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in batch.items() if k != "polls"}

    async def _json(self, writer: asyncio.StreamWriter, data: dict[str, Any]) -> None:
        self.stats.status[200] += 1
        await self._respond(writer, 200, json.dumps(data).encode())

    async def _answer(self, request_line: str, body: bytes, writer: asyncio.StreamWriter) -> None:
        self.stats.requests += 1
        c = self.config
        roll = self._rng.random()
        if c.latency:
            await asyncio.sleep(c.latency)
        if c.status:
            self.stats.status[c.status] += 1
            message = {401: "Incorrect API key provided", 403: "You do not have access to this model",
                       404: "The model does not exist"}.get(c.status, "error")
            await self._respond(writer, c.status, json.dumps({"error": {"message": message}}).encode())
            return
        if self.stats.requests <= c.fail_first:
            self.stats.status[429] += 1
            headers = {"Retry-After": str(c.retry_after)} if c.retry_after is not None else {}
            await self._respond(writer, 429, b'{"error": {"message": "rate limited"}}', headers)
            return
        if roll < c.hang_rate:
            self.stats.hung += 1
            await asyncio.sleep(c.hang_seconds)
        elif roll < c.hang_rate + c.fail_rate:
            status = 429 if self._rng.random() < 0.5 else 500
            self.stats.status[status] += 1
            headers = {"Retry-After": str(c.retry_after)} if status == 429 and c.retry_after is not None else {}
            await self._respond(writer, status, b'{"error": {"message": "injected fault"}}', headers)
            return
        payload = json.loads(body or b"{}")
        self.stats.last_payloads = [*self.stats.last_payloads[-99:], payload]
        self.stats.chat += 1
        prompt = payload.get("messages", [{}])[-1].get("content", "")
        text = self._reply_text(payload)
        response = completion(self.stats.requests, payload.get("model", "mock"), str(prompt), text)
        if c.bad_reply and self._rng.random() < c.bad_rate:
            await self._bad(writer, c.bad_reply, response)
            return
        self.stats.status[200] += 1
        await self._respond(writer, 200, json.dumps(response).encode())

    async def _bad(self, writer: asyncio.StreamWriter, mode: str, response: dict[str, Any]) -> None:
        status, content_type, body = BAD_REPLIES[mode]
        if mode == "null_content":
            response["choices"][0]["message"]["content"] = None
        elif mode == "no_choices":
            response["choices"] = []
        self.stats.bad += 1
        self.stats.status[status] += 1
        await self._respond(writer, status, body if body is not None else json.dumps(response).encode(),
                            content_type=content_type)

    def _serve(self) -> None:
        self._loop = asyncio.new_event_loop()

        async def main() -> None:
            self._stop = asyncio.Event()
            self._server = await asyncio.start_server(self._handle, self.host, self.port, backlog=1024)
            self.port = self._server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop.wait()
            self._server.close()
            for task in list(self._handlers):
                task.cancel()
            await asyncio.gather(*self._handlers, return_exceptions=True)
            await self._server.wait_closed()

        try:
            self._loop.run_until_complete(main())
        finally:
            self._loop.close()

    def start(self) -> MockOpenAI:
        self._thread = threading.Thread(target=self._serve, daemon=True, name="mock-openai")
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("mock server did not start")
        return self

    def stop(self) -> None:
        if self._loop and self._stop and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread:
            self._thread.join(5)

    def __enter__(self) -> MockOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--fail-rate", type=float, default=0.0)
    parser.add_argument("--hang-rate", type=float, default=0.0)
    parser.add_argument("--bad-reply", choices=sorted(BAD_REPLIES), default="", help="answer malformed replies")
    parser.add_argument("--bad-rate", type=float, default=1.0, help="share of requests given --bad-reply")
    args = parser.parse_args()
    config = MockConfig(args.latency, args.fail_rate, args.hang_rate, bad_reply=args.bad_reply, bad_rate=args.bad_rate)
    server = MockOpenAI(config, port=args.port).start()
    print(f"serving on {server.base_url}; Ctrl-C stops")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
