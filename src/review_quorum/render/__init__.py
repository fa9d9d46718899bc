"""Renderers: pure functions from results to text. Files are opened only by the CLI.

Each output format of `quorum review` is one module with a `render(plan)` function;
`render.formats.RENDERERS` is the literal registry its `--format` choices come from.
"""
