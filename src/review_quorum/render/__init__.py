"""Renderers: pure functions from results to text. Files are opened only by the CLI."""
