"""Extract the GitHub workflows (or, with --gitlab, the GitLab CI files) shown in Markdown.

Each ```yaml fence of each Markdown file given is found with a CommonMark parser
(markdown-it-py) and parsed with a YAML parser; those whose document is a workflow (a
mapping with `on` and `jobs`) are written to OUTPUT_DIR as `<file stem>-<n>.yml`, with the
fence's text unchanged. A fence that is not valid YAML is an error naming the file and line.
Exits 2 when no workflow is found at all, so that a renamed fence cannot make the checks
pass on nothing. With --gitlab the fences kept are GitLab CI configurations instead (a
mapping with at least one job: a mapping that has a `script`), written as
`<file stem>-gitlab-<n>.yml`, for check-jsonschema's vendor.gitlab-ci schema. Likewise
--azure-pipelines keeps Azure Pipelines definitions (a mapping with `steps`, `jobs` or
`stages` and a `trigger`, `pr` or `pool`) for vendor.azure-pipelines, and
--bitbucket-pipelines keeps `bitbucket-pipelines.yml` files (a mapping of `pipelines`) for
vendor.bitbucket-pipelines.

    python .ci/workflow_blocks.py OUTPUT_DIR README.md docs/*.md
    python .ci/workflow_blocks.py --gitlab OUTPUT_DIR docs/gitlab.md
    python .ci/workflow_blocks.py --azure-pipelines OUTPUT_DIR docs/azure-devops.md
    python .ci/workflow_blocks.py --bitbucket-pipelines OUTPUT_DIR docs/bitbucket.md
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

YAML_LANGUAGES = {"yaml", "yml"}


def yaml_fences(markdown: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of every fenced code block whose language is YAML."""
    for token in MarkdownIt("commonmark").parse(markdown):
        language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
        if token.type == "fence" and language.lower() in YAML_LANGUAGES and token.map:
            yield token.map[0] + 2, token.content


def is_workflow(document: object) -> bool:
    """A workflow has triggers and jobs (YAML 1.1 reads the key `on` as true)."""
    if not isinstance(document, dict):
        return False
    return "jobs" in document and ("on" in document or True in document)


def is_gitlab_ci(document: object) -> bool:
    """A GitLab CI configuration has at least one job: a mapping with a `script`."""
    if not isinstance(document, dict):
        return False
    return any(isinstance(job, dict) and "script" in job for job in document.values())


def is_azure_pipeline(document: object) -> bool:
    """An Azure Pipelines definition has steps, jobs or stages, and a trigger or a pool."""
    if not isinstance(document, dict) or "on" in document or True in document:
        return False
    has_work = any(key in document for key in ("steps", "jobs", "stages"))
    return has_work and any(key in document for key in ("trigger", "pr", "pool"))


def is_bitbucket_pipelines(document: object) -> bool:
    """A `bitbucket-pipelines.yml` has a mapping of `pipelines`."""
    return isinstance(document, dict) and isinstance(document.get("pipelines"), dict)


KINDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "--gitlab": (is_gitlab_ci, "-gitlab"),
    "--azure-pipelines": (is_azure_pipeline, "-azure-pipelines"),
    "--bitbucket-pipelines": (is_bitbucket_pipelines, "-bitbucket-pipelines"),
}


def workflows(
    path: Path, kind: Callable[[object], bool] = is_workflow
) -> Iterator[tuple[int, str]]:
    """The fences of one Markdown file whose document is of `kind`, as (line, text)."""
    for line, text in yaml_fences(path.read_text(encoding="utf-8")):
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise SystemExit(f"{path}:{line}: the YAML block does not parse: {err}") from None
        if kind(document):
            yield line, text


def main(argv: list[str]) -> int:
    chosen = KINDS.get(argv[0]) if argv else None
    argv = argv[1:] if chosen is not None else argv
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    output = Path(argv[0])
    output.mkdir(parents=True, exist_ok=True)
    kind, infix = chosen if chosen is not None else (is_workflow, "")
    count = 0
    for name in argv[1:]:
        source = Path(name)
        for index, (line, text) in enumerate(workflows(source, kind), start=1):
            target = output / f"{source.stem}{infix}-{index}.yml"
            target.write_text(text, encoding="utf-8")
            print(f"{source}:{line} -> {target}")
            count += 1
    if count == 0:
        print("no workflow found in " + ", ".join(argv[1:]), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
