"""Tests of the GitLab reader, poster and stand-in."""
