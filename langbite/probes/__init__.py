"""Statistical probes in the GenderBench style."""
