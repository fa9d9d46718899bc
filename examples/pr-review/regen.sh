#!/usr/bin/env bash
# Regenerate the derived files of the pr-review example from base/ and head/:
#   pr.diff                      the pull request as a unified diff (paths app/...)
#   analysers/bandit.sarif       Bandit on head/
#   analysers/ruff.sarif         Ruff on head/
#   analysers/semgrep.sarif      Semgrep with semgrep-rules.yml on head/
#   analysers/VERSIONS.txt       the exact commands and tool versions used
#   bots/*.json                  the bot comments (bots/generate.py; diff_hunk comes from pr.diff)
# The analysers run from a separate virtualenv (never the project's .venv):
#   python3 -m venv /tmp/toolsvenv && /tmp/toolsvenv/bin/pip install 'bandit[sarif]' ruff semgrep
# Override its location with TOOLS_VENV=... . Running the script twice gives the same files.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NEUTRAL_ROOT=/home/runner/work/stockroom/stockroom
cd "$here"
venv="${TOOLS_VENV:-/tmp/toolsvenv}"
for tool in bandit ruff semgrep python; do
    if [[ ! -x "$venv/bin/$tool" ]]; then
        echo "regen.sh: $venv/bin/$tool not found; create the tools venv first:" >&2
        echo "  python3 -m venv $venv && $venv/bin/pip install 'bandit[sarif]' ruff semgrep" >&2
        exit 2
    fi
done

# The exact commands; VERSIONS.txt records them as written here.
diff_cmd=(git -c core.quotepath=off diff --no-index --no-color --no-ext-diff --no-renames
    --src-prefix=a/ --dst-prefix=b/ base/app head/app)
# Only header lines are rewritten: a/base/app/x.py -> a/app/x.py, b/head/app/x.py -> b/app/x.py.
sed_cmd=(sed -E -e '/^(diff --git|--- a\/|\+\+\+ b\/)/ s#(a|b)/(base|head)/app/#\1/app/#g')
bandit_cmd=("$venv/bin/bandit" -q -r app -f sarif -o ../analysers/bandit.sarif)
ruff_cmd=("$venv/bin/ruff" check --isolated --no-cache --line-length 100 --select S,B,E,F
    --output-format sarif app)
semgrep_cmd=("$venv/bin/semgrep" scan --metrics=off --disable-version-check --quiet
    --config ../semgrep-rules.yml --sarif --output ../analysers/semgrep.sarif app)

# Byte-code caches would otherwise show up in the diff and in the scans.
find base head -name __pycache__ -type d -prune -exec rm -rf {} +

# git diff --no-index exits 1 when the trees differ, which they always do here.
status=0
"${diff_cmd[@]}" > pr.diff.tmp || status=$?
if [[ $status -ne 1 ]]; then
    echo "regen.sh: git diff --no-index exited $status" >&2
    exit 1
fi
"${sed_cmd[@]}" pr.diff.tmp > pr.diff
rm pr.diff.tmp

# The bot comments quote pr.diff (diff_hunk, positions, Sourcery's code context).
"$venv/bin/python" bots/generate.py

# Bandit and Ruff exit 1 when they report findings; anything higher is a failure.
run_allowing_findings() {
    local status=0
    "$@" || status=$?
    if [[ $status -gt 1 ]]; then
        echo "regen.sh: $1 exited $status" >&2
        exit 1
    fi
}

mkdir -p analysers
cd head
run_allowing_findings "${bandit_cmd[@]}"
run_allowing_findings "${ruff_cmd[@]}" > ../analysers/ruff.sarif
"${semgrep_cmd[@]}"
cd ..

# Ruff writes absolute file:// URIs naming this checkout; rewrite that prefix to a neutral
# runner-style one (as ../shared does for its real SARIF) so the committed file is the same
# on every machine. quorum.toml sets `root` to it. Nothing else in the file changes.
sed -i "s#file://$here/head/#file://$NEUTRAL_ROOT/#g" analysers/ruff.sarif

# Bandit stamps the run with its wall-clock end time; pin it so reruns are byte-identical.
# Nothing else in any tool output is changed.
"$venv/bin/python" - analysers/bandit.sarif <<'PY'
import json, sys
path = sys.argv[1]
with open(path, encoding="utf-8") as handle:
    sarif = json.load(handle)
for run in sarif["runs"]:
    for invocation in run.get("invocations", []):
        if "endTimeUtc" in invocation:
            invocation["endTimeUtc"] = "2000-01-01T00:00:00Z"
with open(path, "w", encoding="utf-8") as handle:
    json.dump(sarif, handle, indent=2)
    handle.write("\n")
PY

# Quote each argument the way a person would type it, and drop the venv prefix.
quoted() {
    local out=() arg
    for arg in "$@"; do
        arg="${arg#"$venv/bin/"}"
        if [[ $arg =~ ^[A-Za-z0-9_./,=:%+-]+$ ]]; then
            out+=("$arg")
        else
            out+=("'${arg//\'/\'\\\'\'}'")
        fi
    done
    echo "${out[*]}"
}
count() {
    "$venv/bin/python" -c 'import json, sys
print(sum(len(run["results"]) for run in json.load(open(sys.argv[1]))["runs"]))' "$1"
}
{
    echo "# Written by regen.sh; do not edit."
    echo "python: $("$venv/bin/python" --version 2>&1)"
    echo "bandit: $("$venv/bin/bandit" --version 2>&1 | head -n 1)"
    echo "ruff: $("$venv/bin/ruff" --version 2>&1)"
    echo "semgrep: $("$venv/bin/semgrep" --version --disable-version-check 2>&1)"
    echo "git: $(git --version)"
    echo
    echo "# Commands, run from examples/pr-review (the analysers from head/)"
    echo "pr.diff: $(quoted "${diff_cmd[@]}") | $(quoted "${sed_cmd[@]}")"
    echo "bandit.sarif: $(quoted "${bandit_cmd[@]}")"
    echo "  then runs[].invocations[].endTimeUtc is pinned to 2000-01-01T00:00:00Z"
    echo "ruff.sarif: $(quoted "${ruff_cmd[@]}") > ../analysers/ruff.sarif"
    echo "  then the checkout prefix file://<here>/head/ is rewritten to file://$NEUTRAL_ROOT/"
    echo "semgrep.sarif: $(quoted "${semgrep_cmd[@]}")"
    echo
    echo "# Result counts"
    for tool in bandit ruff semgrep; do
        echo "$tool: $(count "analysers/$tool.sarif") results"
    done
} > analysers/VERSIONS.txt
echo "regen.sh: wrote pr.diff, bots/*.json and analysers/"
