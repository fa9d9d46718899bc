"""Tests of review_quorum.github, with a stateful fake of the GitHub REST API."""
