"""LangBiTe's import paths for model services, so its extensions run with imports unchanged.

``llm_service.LLMService`` is the base class LangBiTe's guide tells users to extend;
``llm_factory.factory`` is where their builders are registered. Behind both sits
langbite's own machinery (:mod:`langbite.execute.factories`): this package only
adapts names.
"""
