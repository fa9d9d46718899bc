"""Tests of the Azure DevOps platform: client, reading, posting, stand-in."""
