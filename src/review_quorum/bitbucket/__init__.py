"""Bitbucket Cloud: the REST client, the pull request and Code Insights posters."""
