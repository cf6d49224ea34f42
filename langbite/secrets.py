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
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

MASK = "***"
#: Query parameters whose values are secrets.
SECRET_PARAMS = frozenset({"api_key", "apikey", "api-key", "key", "token", "access_token", "auth", "sig",
                           "signature", "secret", "password", "pass", "pwd", "code", "x-api-key"})
#: Environment variables that hold secrets (any provider's key, LangBiTe's names included).
SECRET_ENV = re.compile(r"(API_KEY|_KEY|TOKEN|SECRET|PASSWORD)$|^API_KEY_")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
_PARAM = re.compile(r"(?i)\b(" + "|".join(re.escape(p) for p in sorted(SECRET_PARAMS, key=len, reverse=True))
                    + r")=([^\s&'\"<>]+)")


def env_first(*names: str) -> str | None:
    """The value of the first of ``names`` set (non-empty) in the environment."""
    for name in names:
        value = os.environ.get(name) if name else None
        if value:
            return value
    return None


_USERINFO = re.compile(r"(//)[^/?#@\s]*@")
_known: set[str] = set()


def remember(url: str | None) -> None:
    """Note the secrets inside ``url`` (its password, secret query values) so that free text never shows them.

    Called for every base URL langbite is given, wherever it came from, so that a
    library that quotes the URL in its own words (or percent-decoded) is redacted too.
    """
    if not url:
        return
    try:
        parts = urlsplit(url.strip())
        found = [parts.password or "", *(v for k, v in parse_qsl(parts.query) if k.lower() in SECRET_PARAMS)]
    except ValueError:
        found = [m.group(2) for m in _PARAM.finditer(url)]
    for value in found:
        for form in (value, unquote(value), quote(value, safe="")):
            if len(form) >= 4:
                _known.add(form)


def redact_url(url: str) -> str:
    """``url`` without credentials: user:password@ is dropped and secret query values become ***."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not parseable as a URL: remove what looks like credentials all the same
        return _PARAM.sub(lambda m: f"{m.group(1)}={MASK}", _USERINFO.sub(r"\1", url))
    netloc = parts.netloc
    if "@" in netloc:
        netloc = netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MASK if k.lower() in SECRET_PARAMS else v) for k, v in pairs], safe="*")
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _secret_values() -> list[str]:
    """Values of the key variables in the environment, and the secrets of every URL seen so far."""
    values = {v for k, v in os.environ.items() if SECRET_ENV.search(k.upper()) and len(v) >= 8}
    return sorted(values | _known, key=len, reverse=True)


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
        if record.exc_info and not record.exc_text:  # the formatter uses exc_text when it is set
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        return True


def redact_logging(logger: logging.Logger | None = None) -> None:
    """Put a :class:`RedactingFilter` on every handler of ``logger`` (the root logger by default).

    A filter on a handler sees the records of every logger that propagates to it,
    so HTTP libraries' request lines (which quote URLs) are redacted too.
    """
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


def load_env(folder: Path | None = None) -> None:
    """Read ``.env`` in ``folder`` (the current one) into the environment, never over a variable already set.

    Both the command line and the Python API call this, so keys (and LangBiTe's
    ``API_KEY_*`` names) reach the providers the same way; they stay in the
    environment only and are never written anywhere.
    """
    from dotenv import load_dotenv

    load_dotenv((folder or Path.cwd()) / ".env", override=False)
