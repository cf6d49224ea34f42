"""Reports of a run folder: CSV files (and, in later stages, Excel and HTML)."""
