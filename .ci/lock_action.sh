#!/usr/bin/env bash
# Regenerate action-requirements.txt, the hash-pinned lock the Action installs from
# (`pip install --require-hashes`): the runtime dependencies in pyproject.toml and the build
# backend (build-system.requires), with every transitive dependency and a sha256 of every
# file PyPI has for each pinned release (so every Python and platform the Action may run
# on is covered). Resolved from pip's default index (PyPI) alone, ignoring any pip
# configuration, by pip-tools installed into a throw-away virtual environment. Run it after
# changing the dependencies; .ci/action_lock.py (in .ci/run) fails until the lock matches
# them. Pins already in the lock are kept; pass --upgrade to move every pin to the newest
# release, or --upgrade-package NAME for one.
#
#     bash .ci/lock_action.sh [--upgrade | --upgrade-package NAME ...]
set -euo pipefail
cd "$(dirname "$0")/.."
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_CONSTRAINT
python3 -m venv "$tools/venv"
"$tools/venv/bin/pip" install --quiet "pip-tools>=7.4"
CUSTOM_COMPILE_COMMAND="bash .ci/lock_action.sh" "$tools/venv/bin/pip-compile" --quiet \
    --generate-hashes --allow-unsafe --strip-extras --build-deps-for wheel \
    --no-emit-index-url \
    --output-file action-requirements.txt "$@" pyproject.toml
