"""Your application as the model under test: an ``http:NAME`` model calls your chatbot's own HTTP API.

Configured as data in the requirements model::

    {"model": "http:bank-bot", "concurrency": 4, "requests_per_minute": 120,
     "http": {"url": "https://bot.example.com/api/chat",
              "headers": {"Authorization": "Bearer ${BANK_BOT_TOKEN}"},
              "body": {"session": "langbite", "input": {"text": "{prompt}"}, "context": "{system_prompt}"},
              "answer": "data.reply"}}

Every call sends the body with the strings ``{prompt}`` and ``{system_prompt}`` filled in (as JSON strings:
a prompt cannot break the body) and reads the answer at the dotted path of the reply (numbers index lists:
``choices.0.message.content``). Header values name environment variables as ``${NAME}``; they are read
when the service is built (a missing one is an input error before any call) and are never written to any
file or log. Retries, the cache, resume, the budget and concurrency apply as to any model: a 408, 429 or
5xx is retried, a reply that is not JSON is retried, a reply without the answer path stops the model's
calls at once with one clear line (every other reply would be the same).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from langbite.errors import InputErrors
from langbite.execute.services import Generation, InvalidReply
from langbite.model import GenerationParams, HttpEndpoint, ModelSpec
from langbite.secrets import redact_url

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class AnswerPathMissing(Exception):
    """The reply has no value at the answer path: a configuration fault that no retry mends."""

    fatal = True


def fill(template: Any, values: dict[str, str]) -> Any:
    """The body template with every placeholder string filled (inside JSON strings, never as JSON text)."""
    if isinstance(template, str):
        for name, value in values.items():
            template = template.replace("{" + name + "}", value)
        return template
    if isinstance(template, list):
        return [fill(v, values) for v in template]
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    return template


def at_path(reply: Any, path: str) -> Any:
    """The value at a dotted path of a JSON reply; raises AnswerPathMissing naming what the reply has."""
    node = reply
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            has = sorted(node)[:8] if isinstance(node, dict) else type(node).__name__
            raise AnswerPathMissing(f"the reply has no '{path}' (at '{part}' it has {has}); fix the model's "
                                    "'http.answer' path")
    return node


def headers_of(endpoint: HttpEndpoint, spec: str) -> dict[str, str]:
    """The request headers, ``${NAME}`` read from the environment; an unset one is an input error."""
    out = {"Content-Type": "application/json"}
    missing = []
    for name, value in endpoint.headers:
        def variable(m: re.Match[str]) -> str:
            found = os.environ.get(m.group(1))
            if not found:
                missing.append(m.group(1))
                return ""
            return found

        out[name] = _VARIABLE.sub(variable, value)
    if missing:
        raise InputErrors.single(spec, f"http headers name environment variables that are not set: "
                                 f"{', '.join(sorted(set(missing)))} (set them, or put them in .env)")
    return out


@dataclass
class HttpService:
    """An application's HTTP API as a chat service of the engine."""

    endpoint: HttpEndpoint
    headers: dict[str, str] = field(repr=False)
    provider: str = "http"
    model: str = ""
    identity: str = ""
    max_concurrency: int | None = None
    _client: Any = field(default=None, repr=False)

    @classmethod
    def of(cls, spec: ModelSpec) -> HttpService:
        if spec.http is None:
            raise InputErrors.single(spec.spec, "an http: model needs its 'http' object in the requirements model")
        return cls(spec.http, headers_of(spec.http, spec.spec), model=spec.model,
                   identity=f"{redact_url(spec.http.url)} {spec.http.method} → {spec.http.answer}")

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(timeout=None)  # the engine times each call out itself
        body = fill(json.loads(self.endpoint.body), {"prompt": prompt, "system_prompt": params.system_prompt})
        response = await self._client.request(self.endpoint.method, self.endpoint.url, json=body,
                                              headers=self.headers)
        response.raise_for_status()  # HTTPStatusError carries the status: 408, 429 and 5xx are retried
        try:
            reply = response.json()
        except ValueError:
            raise InvalidReply(f"the application sent {response.headers.get('content-type', 'no content type')} "
                               "that is not JSON") from None
        answer = at_path(reply, self.endpoint.answer)
        if not isinstance(answer, str):
            answer = json.dumps(answer, ensure_ascii=False)
        return Generation(text=answer)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
