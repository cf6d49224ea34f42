"""The template library: CSV prompt templates, their markups and oracle predictions."""
