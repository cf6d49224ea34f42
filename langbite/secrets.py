"""Keep secrets out of everything langbite writes: files, reports, logs and error messages.

Secrets reach langbite in three ways: API keys in the environment (or a
``.env`` file), credentials inside a base URL (``http://user:pass@host/v1``)
and tokens in a URL's query string (``?api_key=…``). Every URL langbite writes
or logs goes through :func:`redact_url`; every free text that may quote one
(an error reason, a log line from an HTTP library) goes through
:func:`redact_text`, which also masks the values of the known key variables.
:class:`RedactingFilter` applies it to every log record a handler emits,
third-party loggers included.
"""

from __future__ import annotations

import logging
import os
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
#: Query parameters whose values are secrets.
SECRET_PARAMS = frozenset({"api_key", "apikey", "api-key", "key", "token", "access_token", "auth", "sig",
                           "signature", "secret", "password", "pass", "pwd", "code", "x-api-key"})
#: Environment variables that hold secrets (any provider's key, LangBiTe's names included).
SECRET_ENV = re.compile(r"(API_KEY|_KEY|TOKEN|SECRET|PASSWORD)$|^API_KEY_")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
_PARAM = re.compile(r"(?i)\b(" + "|".join(re.escape(p) for p in sorted(SECRET_PARAMS, key=len, reverse=True))
                    + r")=([^\s&'\"<>]+)")


def redact_url(url: str) -> str:
    """``url`` without credentials: user:password@ is dropped and secret query values become ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _PARAM.sub(lambda m: f"{m.group(1)}={MASK}", url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MASK if k.lower() in SECRET_PARAMS else v) for k, v in pairs], safe="*")
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _secret_values() -> list[str]:
    return sorted({v for k, v in os.environ.items() if SECRET_ENV.search(k.upper()) and len(v) >= 8},
                  key=len, reverse=True)


def redact_text(text: str) -> str:
    """Free text with every URL redacted, ``key=value`` secrets masked and known key values removed."""
    if not text:
        return text
    out = _URL.sub(lambda m: redact_url(m.group(0)), text)
    out = _PARAM.sub(lambda m: f"{m.group(1)}={MASK}", out)
    for value in _secret_values():
        out = out.replace(value, MASK)
    return out


class RedactingFilter(logging.Filter):
    """A handler filter: every record's message is redacted before it is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed third-party record: leave it to the handler's own error path
            return True
        clean = redact_text(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True
