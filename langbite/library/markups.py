"""Markups in prompt templates: ``{NAME}`` or ``{NAME<n>}`` with n = 1, 2, …, optionally with a form.

A markup name is upper-case letters and underscores. Letters outside ASCII
are allowed (LangBiTe's Catalan library writes ``{RELIGIÓ1}``), so the class
of upper-case letters is built from Unicode's own table rather than ``A-Z``.

``{NAME:form}`` (or ``{NAME1:form}``) writes the same community in another
form: ``name`` (a first name standing for it), ``sg`` (singular), or a
preposition such as ``de`` whose contraction the language's rules make
(Catalan ``{COUNTRY:de}`` → "d'Alemanya", "del Marroc"); see
:mod:`langbite.library.communities`. The form does not make another markup:
``{COUNTRY}`` and ``{COUNTRY:de}`` in one template are one community.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Upper-case letters of the Latin, Greek and Cyrillic blocks (every script a library is written in today).
_UPPER = "".join(re.escape(chr(c)) for c in range(0x2000) if chr(c).isupper() and chr(c).isalpha())
MARKUP = re.compile(rf"\{{([{_UPPER}](?:[{_UPPER}_]*[{_UPPER}])?)(\d*)(?::([a-z][a-z_]*))?\}}")
_BAD_FORM = re.compile(rf"\{{[{_UPPER}][{_UPPER}_]*\d*:([^{{}}]*)\}}")
_LOOKALIKE = re.compile(r"\{\s*([^\W\d][\w ]*?)\s*\}")
# Characters a word processor or an input method puts where a brace was meant.
# (full-width, small, presentation and ornamental braces: every character whose NFKC form is a brace, and two more).
_BRACE_LOOKALIKES = frozenset("｛｝﹛﹜︷︸❴❵⦃⦄")


#: Other names of a markup, read as the name they map to everywhere (templates, requirements, audits, prompt
#: tests, the community tables): LangBiTe's ``SKIN_COLOR`` carries ethnicities as well as skin colours (Arab,
#: Roma, Latino), so langbite's own name for it is ``ETHNICITY``; LangBiTe's files keep running as written.
ALIASES: dict[str, str] = {"SKIN_COLOR": "ETHNICITY"}


def canonical(root: str) -> str:
    """A markup root under its one name (``SKIN_COLOR`` → ``ETHNICITY``; any other root as it is)."""
    return ALIASES.get(root, root)


def canonical_text(text: str) -> str:
    """``text`` with every markup written under its one name (``{SKIN_COLOR1:f}`` → ``{ETHNICITY1:f}``)."""
    if "{" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        root = canonical(m.group(1))
        return m.group(0) if root == m.group(1) else "{" + root + m.group(0)[1 + len(m.group(1)):]

    return MARKUP.sub(one, text)


@dataclass(frozen=True)
class MarkupScan:
    names: tuple[str, ...]  # distinct markups (without form) in number order, e.g. ("GENDER1", "GENDER2")
    roots: tuple[str, ...]  # distinct roots, e.g. ("GENDER",)
    problems: tuple[str, ...]
    forms: frozenset[tuple[str, str]] = frozenset()  # (root, form) pairs written, e.g. {("COUNTRY", "de")}


def split(name: str) -> tuple[str, int]:
    """'GENDER2' → ('GENDER', 2); 'GENDER' → ('GENDER', 0)."""
    m = MARKUP.fullmatch("{" + name + "}")
    if m is None or m.group(3):
        raise ValueError(f"not a markup name: {name!r}")
    return m.group(1), int(m.group(2) or 0)


def scan(text: str) -> MarkupScan:
    """Find the markups of one text and everything wrong with them, each problem once."""
    problems: list[str] = []
    names: dict[str, None] = {}
    roots: dict[str, None] = {}
    numbered: dict[str, set[int]] = {}
    plain: set[str] = set()
    zero_padded: set[str] = set()
    forms: set[tuple[str, str]] = set()
    for m in MARKUP.finditer(text):
        root, num = m.group(1), m.group(2)
        names[root + num] = None
        if m.group(3):
            forms.add((root, m.group(3)))
        roots[root] = None
        if num:
            if num.startswith("0"):
                problems.append(f"markup {m.group(0)}: numbers start at 1, without leading zeros")
                zero_padded.add(root)
            numbered.setdefault(root, set()).add(int(num))
        else:
            plain.add(root)
    for root, nums in numbered.items():
        if root in plain:
            problems.append(f"markup {{{root}}} is used both numbered and unnumbered")
        if root not in zero_padded and sorted(nums) != list(range(1, len(nums) + 1)):
            found = ", ".join(f"{{{root}{n}}}" for n in sorted(nums))
            problems.append(f"numbered markups must be consecutive from 1: found {found}")
    lookalikes = sorted({c for c in text if c in _BRACE_LOOKALIKES})
    if lookalikes:
        shown = " and ".join(f"'{c}' (U+{ord(c):04X})" for c in lookalikes)
        problems.append(f"{shown} look like braces but are not: write markups with ASCII braces, like {{GENDER1}}")
    rest = MARKUP.sub("", text)
    for m in _BAD_FORM.finditer(rest):
        problems.append(f"'{m.group(0)}': a form is lower-case letters after the colon, like {{COUNTRY:de}} or"
                        " {GENDER:name}")
    rest = _BAD_FORM.sub("", rest)
    for m in _LOOKALIKE.finditer(rest):
        problems.append(f"'{m.group(0)}' is not a markup: write markups in upper case, like {{GENDER}} or {{GENDER1}}")
    rest = _LOOKALIKE.sub("", rest)
    if "{" in rest or "}" in rest:
        problems.append("unbalanced brace: '{' and '}' may only surround a markup such as {GENDER1}")
    # grouped by root in order of first appearance, numbered markups in number order, so {X1}
    # always takes a tuple's first community
    root_order = list(roots)
    ordered = sorted(names, key=lambda n: (root_order.index(split(n)[0]), split(n)[1]))
    return MarkupScan(tuple(ordered), tuple(roots), tuple(problems), frozenset(forms))
