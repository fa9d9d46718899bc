"""GitLab merge requests: the REST v4 client, the target, the poster and its anchoring."""
