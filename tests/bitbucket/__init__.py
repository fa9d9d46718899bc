"""Tests of the Bitbucket Cloud platform: client, reading, posting, Code Insights, stand-in."""
