"""The Ray executor (``langbite run --executor ray``): models hosted by actors on a Ray cluster.

Each model under test gets ``actors`` Ray actors, each building the model's
service in its own process (the embedded llama.cpp model, a local GGUF, or any
provider), so that local inference spreads over the cluster's CPUs or GPUs.
The driver keeps everything else: :class:`RayService` stands in for the model's
service in the ordinary engine, which sends each prompt to the next free actor
and, alone, writes the journal and the cache. Resume, retries, limits, budget
and reports are therefore those of a local run, and a run folder made on Ray
resumes locally and the other way round.

``ray.init`` connects to ``address`` (a running cluster, as ``ray start``
prints, or ``auto``) or starts a local one. Ray is the ``ray`` extra.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any

from langbite.execute.services import Generation, ChatService
from langbite.model import GenerationParams, ModelSpec

log = logging.getLogger(__name__)


def _actor_class() -> Any:
    import ray

    @ray.remote
    class ModelActor:
        """One copy of a model, built inside the actor's process."""

        def __init__(self, spec: dict[str, Any]) -> None:
            from langbite.execute.providers import build_service

            self.service = build_service(ModelSpec(**spec))

        async def generate(self, prompt: str, params: dict[str, Any]) -> tuple[str, int, int]:
            g = await self.service.agenerate(prompt, GenerationParams(**params))
            return g.text, g.tokens_in, g.tokens_out

    return ModelActor


@dataclass
class RayService:
    """A model's service whose calls run on Ray actors; same provider, model and identity as the original,
    so the cache and the reports cannot tell a Ray run from a local one."""

    provider: str
    model: str
    identity: str
    max_concurrency: int | None
    actors: list[Any] = field(repr=False)
    _free: asyncio.Queue[Any] | None = field(default=None, repr=False)

    async def agenerate(self, prompt: str, params: GenerationParams) -> Generation:
        import ray

        if self._free is None:
            self._free = asyncio.Queue()
            for actor in self.actors:
                for _ in range(self.per_actor):
                    self._free.put_nowait(actor)
        actor = await self._free.get()
        try:
            text, tokens_in, tokens_out = await actor.generate.remote(prompt, dataclasses.asdict(params))
        except ray.exceptions.RayTaskError as exc:  # the model's own fault, as a local run would see it
            cause = getattr(exc, "cause", None)
            raise (cause if isinstance(cause, BaseException) else exc) from None
        finally:
            self._free.put_nowait(actor)
        return Generation(text=text, tokens_in=tokens_in, tokens_out=tokens_out)

    @property
    def per_actor(self) -> int:
        return max(1, (self.max_concurrency or len(self.actors)) // max(len(self.actors), 1))


def ray_services(services: dict[str, ChatService], specs: dict[str, ModelSpec], actors: int,
                 address: str | None = None) -> dict[str, ChatService]:
    """Every model's service moved onto ``actors`` Ray actors (the judge stays local)."""
    import ray

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    cls = _actor_class()
    out: dict[str, ChatService] = dict(services)
    for name, spec in specs.items():
        local = services[name]
        fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
        fields["spec"] = spec.base_spec
        pool = [cls.remote(fields) for _ in range(actors)]
        own = local.max_concurrency
        out[name] = RayService(local.provider, local.model, local.identity,
                               max_concurrency=(own or 8) * actors, actors=pool)
        log.info("%s: %d Ray actor(s)", name, actors)
    return out
