"""Check that the Action's lock, action-requirements.txt, still matches pyproject.toml.

The Action installs its dependencies with `pip install --require-hashes -r
action-requirements.txt` and then review-quorum itself with `--no-deps
--no-build-isolation`, so the lock must hold every runtime dependency
(`project.dependencies`) and every build requirement (`build-system.requires`) whose
markers apply on Linux under a Python the Action may use, each pinned with `==` to a
version its specifier allows, and every requirement in it must carry at least one
`--hash=sha256:...` and nothing else (no index or file options, no editable or unpinned
lines). pip itself refuses, in hash mode, a transitive dependency the lock lacks, which the
end-to-end test of the Action's install step checks. Each problem is printed as
`FILE:LINE: message` and the exit status is 1; `bash .ci/lock_action.sh` regenerates the
lock.

    python .ci/action_lock.py [PYPROJECT LOCK]
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parent.parent
# The Pythons the Action may run (its python-version input: 3.11 or newer).
PYTHONS = ("3.11", "3.12", "3.13", "3.14")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")
PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


class Pin(NamedTuple):
    name: str
    version: str
    line: int


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each requirement line: comments dropped, `\\` joined."""
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending.append(line.rstrip()[:-1])
            continue
        pending.append(line)
        joined = " ".join(part.strip() for part in pending).strip()
        pending = []
        if joined:
            yield start, joined
    if pending and " ".join(pending).strip():
        yield start, " ".join(part.strip() for part in pending).strip()


def read_lock(path: Path, problems: list[str]) -> dict[str, Pin]:
    """The lock's pins by normalised name; what is wrong with a line goes to `problems`."""
    pins: dict[str, Pin] = {}
    for number, line in logical_lines(path.read_text(encoding="utf-8")):
        where = f"{path.name}:{number}"
        requirement, *options = line.split()
        match = PIN.fullmatch(requirement)
        if requirement.startswith("-") or match is None:
            problems.append(f"{where}: {requirement!r} is not a NAME==VERSION requirement")
            continue
        hashes = [option for option in options if HASH.fullmatch(option)]
        others = [option for option in options if not HASH.fullmatch(option)]
        if not hashes:
            problems.append(f"{where}: {requirement} has no --hash=sha256:...")
        if others:
            problems.append(f"{where}: {requirement}: unexpected {' '.join(others)}")
        name = canonicalize_name(match.group(1))
        if name in pins:
            problems.append(f"{where}: {name} is pinned again (first on line {pins[name].line})")
        pins[name] = Pin(name, match.group(2), number)
    return pins


def declared(pyproject: Path) -> list[tuple[str, Requirement]]:
    """(table, requirement) for each runtime dependency and build requirement."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    tables = (
        ("project.dependencies", data.get("project", {}).get("dependencies", [])),
        ("build-system.requires", data.get("build-system", {}).get("requires", [])),
    )
    found: list[tuple[str, Requirement]] = []
    for table, entries in tables:
        for entry in entries:
            try:
                found.append((table, Requirement(entry)))
            except InvalidRequirement as err:
                raise SystemExit(f"{pyproject.name}: {table}: {entry!r}: {err}") from None
    return found


def applies(requirement: Requirement) -> bool:
    """Whether its markers hold on Linux x86_64 for some Python the Action may use."""
    if requirement.marker is None:
        return True
    return any(
        requirement.marker.evaluate(
            {
                "python_version": version,
                "python_full_version": f"{version}.0",
                "sys_platform": "linux",
                "platform_system": "Linux",
                "platform_machine": "x86_64",
                "os_name": "posix",
                "implementation_name": "cpython",
                "platform_python_implementation": "CPython",
            }
        )
        for version in PYTHONS
    )


def check(pyproject: Path, lock: Path) -> list[str]:
    """Every way the lock fails to match pyproject.toml (empty when it matches)."""
    if not lock.is_file():
        return [f"{lock}: no such file"]
    problems: list[str] = []
    pins = read_lock(lock, problems)
    for table, requirement in declared(pyproject):
        if not applies(requirement):
            continue
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            problems.append(
                f"{lock.name}: {requirement.name} ({pyproject.name} {table}) is not in the lock"
            )
            continue
        try:
            allowed = requirement.specifier.contains(Version(pin.version), prereleases=True)
        except InvalidVersion:
            allowed = False
        if not allowed:
            problems.append(
                f"{lock.name}:{pin.line}: {pin.name}=={pin.version} does not satisfy "
                f"{requirement} ({pyproject.name} {table})"
            )
    own = canonicalize_name(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["name"])
    if own in pins:
        problems.append(f"{lock.name}:{pins[own].line}: the lock pins {own} itself")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) not in (0, 2):
        print(__doc__, file=sys.stderr)
        return 2
    pyproject, lock = (
        (Path(argv[0]), Path(argv[1]))
        if argv
        else (ROOT / "pyproject.toml", ROOT / "action-requirements.txt")
    )
    problems = check(pyproject, lock)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{lock}: out of date: regenerate it with `bash .ci/lock_action.sh`", file=sys.stderr)
        return 1
    print(f"{lock}: matches {pyproject.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
