"""langbite: a test harness for bias and fairness in large language models.

Public API; see README.md and USER_GUIDE.md. Names are imported on first use
(PEP 562) so that the command line starts fast.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "LangBiTe": "langbite.api", "WrongStateError": "langbite.api", "load_run": "langbite.frames",
    "InputError": "langbite.errors", "InputErrors": "langbite.errors",
    "Case": "langbite.oracles", "Oracle": "langbite.oracles", "OracleResult": "langbite.oracles",
    "Prediction": "langbite.oracles", "oracles": "langbite.oracles", "register_oracle": "langbite.oracles",
    "Provider": "langbite.execute.providers", "providers": "langbite.execute.providers",
    "ChatModelService": "langbite.execute.services", "Generation": "langbite.execute.services",
    "ChatService": "langbite.execute.services", "LLMService": "langbite.llm_services.llm_service",
    **{name: "langbite.model" for name in (
        "Answer", "Evaluation", "GenerationParams", "InputType", "Instance", "ModelSpec", "OracleFamily",
        "ProbeEntry", "ReflectionType", "Requirement", "RequirementsModel", "Template", "Verdict")},
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'langbite' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
