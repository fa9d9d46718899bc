"""Print the package's runtime dependencies pinned at their declared floors, as pip constraints.

`project.dependencies` in pyproject.toml gives each runtime dependency a minimum version
(`orjson>=3.12`); a user's pip may install exactly that. `.ci/run` installs the package
and its test extras with these constraints into a second environment and runs the tests
there, so a floor the code has outgrown (a decoder that raises another exception, a
parser that refuses what a later release reads) fails CI instead of a user's run. A
dependency without a `>=` floor is an error, printed as `pyproject.toml: message` with
exit status 1.

    python .ci/floors.py [PYPROJECT] > floors.txt
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

ROOT = Path(__file__).resolve().parent.parent


def floors(pyproject: Path) -> list[str]:
    """`name==floor` for each runtime dependency; `ValueError` naming one without a floor."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pins = []
    for text in project["dependencies"]:
        try:
            requirement = Requirement(text)
        except InvalidRequirement as err:
            raise ValueError(f"{text!r}: {err}") from None
        lowest = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if len(lowest) != 1:
            raise ValueError(f"{text!r}: a runtime dependency needs one >= floor")
        pins.append(f"{requirement.name}=={lowest[0]}")
    return pins


def main(argv: list[str]) -> int:
    pyproject = Path(argv[0]) if argv else ROOT / "pyproject.toml"
    try:
        print("\n".join(floors(pyproject)))
    except ValueError as err:
        print(f"{pyproject.name}: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
