"""LangBiTe's documented import path: ``from langbite.langbite import LangBiTe``.

The class is :class:`langbite.api.LangBiTe`; this module only gives it (and the
exception LangBiTe raises for calls out of order) the names LangBiTe users import.
"""

from __future__ import annotations

from langbite.api import LangBiTe, WrongStateError

#: LangBiTe's name for a call out of order (generate → execute → report).
WrongStateException = WrongStateError

__all__ = ["LangBiTe", "WrongStateError", "WrongStateException"]
