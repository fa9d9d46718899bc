"""`python -m review_quorum` runs the `quorum` command line."""

from review_quorum.cli import entry_point

entry_point()
