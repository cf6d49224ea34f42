"""Markups in prompt templates: ``{NAME}`` or ``{NAME<n>}`` with n = 1, 2, …"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKUP = re.compile(r"\{([A-Z](?:[A-Z_]*[A-Z])?)(\d*)\}")
_LOOKALIKE = re.compile(r"\{\s*([A-Za-z_][\w ]*?)\s*\}")


@dataclass(frozen=True)
class MarkupScan:
    names: tuple[str, ...]  # distinct full markups in order of first appearance, e.g. ("GENDER1", "GENDER2")
    roots: tuple[str, ...]  # distinct roots, e.g. ("GENDER",)
    problems: tuple[str, ...]


def scan(text: str) -> MarkupScan:
    """Find the markups of one text and everything wrong with them."""
    problems: list[str] = []
    names: dict[str, None] = {}
    roots: dict[str, None] = {}
    numbered: dict[str, set[int]] = {}
    plain: set[str] = set()
    for m in MARKUP.finditer(text):
        root, num = m.group(1), m.group(2)
        names[m.group(0)[1:-1]] = None
        roots[root] = None
        if num:
            if num.startswith("0"):
                problems.append(f"markup {m.group(0)}: numbers start at 1, without leading zeros")
            numbered.setdefault(root, set()).add(int(num))
        else:
            plain.add(root)
    for root, nums in numbered.items():
        if root in plain:
            problems.append(f"markup {{{root}}} is used both numbered and unnumbered")
        if sorted(nums) != list(range(1, len(nums) + 1)):
            found = ", ".join(f"{{{root}{n}}}" for n in sorted(nums))
            problems.append(f"numbered markups must be consecutive from 1: found {found}")
    rest = MARKUP.sub("", text)
    for m in _LOOKALIKE.finditer(rest):
        problems.append(f"'{m.group(0)}' is not a markup: write markups in upper case, like {{GENDER}} or {{GENDER1}}")
    rest = _LOOKALIKE.sub("", rest)
    if "{" in rest or "}" in rest:
        problems.append("unbalanced brace: '{' and '}' may only surround a markup such as {GENDER1}")
    # numbered markups in number order, so {X1} always takes a tuple's first community
    ordered = sorted(names, key=lambda n: int(MARKUP.fullmatch("{" + n + "}").group(2) or 0))  # type: ignore[union-attr]
    return MarkupScan(tuple(ordered), tuple(roots), tuple(problems))
