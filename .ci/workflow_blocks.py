"""Extract the GitHub workflows shown in Markdown files, so that CI can check them.

Each ```yaml fence of each Markdown file given is found with a CommonMark parser
(markdown-it-py) and parsed with a YAML parser; those whose document is a workflow (a
mapping with `on` and `jobs`) are written to OUTPUT_DIR as `<file stem>-<n>.yml`, with the
fence's text unchanged. A fence that is not valid YAML is an error naming the file and line.
Exits 2 when no workflow is found at all, so that a renamed fence cannot make the checks
pass on nothing.

    python .ci/workflow_blocks.py OUTPUT_DIR README.md docs/*.md
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
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


def workflows(path: Path) -> Iterator[tuple[int, str]]:
    """The workflow fences of one Markdown file, as (line, text)."""
    for line, text in yaml_fences(path.read_text(encoding="utf-8")):
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise SystemExit(f"{path}:{line}: the YAML block does not parse: {err}") from None
        if is_workflow(document):
            yield line, text


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    output = Path(argv[0])
    output.mkdir(parents=True, exist_ok=True)
    count = 0
    for name in argv[1:]:
        source = Path(name)
        for index, (line, text) in enumerate(workflows(source), start=1):
            target = output / f"{source.stem}-{index}.yml"
            target.write_text(text, encoding="utf-8")
            print(f"{source}:{line} -> {target}")
            count += 1
    if count == 0:
        print("no workflow found in " + ", ".join(argv[1:]), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
