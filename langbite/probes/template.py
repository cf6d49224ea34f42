"""Prompt templates that substitute plain names and nothing else.

``str.format`` is a small language: ``{0}`` and ``{}`` take positional
arguments, ``{occupation.upper}`` reads an attribute (and sends
``<built-in method upper …>`` to the model), ``{x[0]}`` indexes, ``{x!r}``
converts. A probe template is data written by a user, so it gets none of
that: :class:`PlainTemplate` accepts ``{name}`` slots whose name is an
identifier, ``{{`` and ``}}`` for literal braces, and rejects anything else
with a message saying what was found.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from string import Formatter


class TemplateProblem(ValueError):
    """A template that is not a plain-name template; the message says why."""


def _check_slot(name: str | None, spec: str | None, conversion: str | None) -> str:
    if name is None:
        raise TemplateProblem("unexpected")
    shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
    if name == "" or name.isdigit():
        raise TemplateProblem(f"{shown}: positional slots are not allowed; name the value, e.g. {{sentence}}")
    if not name.isidentifier():
        raise TemplateProblem(f"{shown}: only plain names are allowed in slots "
                              "(no attribute access, indexing or expressions)")
    if conversion or spec:
        raise TemplateProblem(f"{shown}: conversions and format specifications are not allowed; write {{{name}}}")
    return name


@dataclass(frozen=True)
class PlainTemplate:
    """A template checked once at construction; :meth:`fill` substitutes its slots."""

    text: str
    parts: tuple[tuple[str, str | None], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts: list[tuple[str, str | None]] = []
        try:
            parsed = list(Formatter().parse(self.text))
        except ValueError as exc:  # "Single '}' encountered", "expected '}' before end of string"
            raise TemplateProblem(f"{exc}; write {{{{ and }}}} for literal braces") from None
        for literal, name, spec, conversion in parsed:
            slot = _check_slot(name, spec, conversion) if name is not None else None
            parts.append((literal, slot))
        object.__setattr__(self, "parts", tuple(parts))

    @property
    def names(self) -> tuple[str, ...]:
        """The slot names, in order of first appearance."""
        return tuple(dict.fromkeys(name for _, name in self.parts if name is not None))

    def missing(self, available: set[str] | frozenset[str]) -> list[str]:
        return [n for n in self.names if n not in available]

    def fill(self, values: Mapping[str, object]) -> str:
        """The text with every slot replaced by ``str(values[name])``; KeyError names a missing slot."""
        out = []
        for literal, name in self.parts:
            out.append(literal)
            if name is not None:
                out.append(str(values[name]))
        return "".join(out)
