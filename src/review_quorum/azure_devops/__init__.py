"""Azure DevOps: the Git REST client, the pull request poster and its parts."""
