"""Run a composite action's steps the way the GitHub Actions runner does, on this machine.

`CompositeRun` loads `action.yml` with a YAML parser and, for each step in order: decides
its `if:` (implicitly `success() && ...`), expands `${{ }}` in its `env:` with the `inputs`,
`github`, `runner` and `steps` contexts, and runs its `run:` script as the runner runs a
`shell: bash` step (`bash --noprofile --norc -eo pipefail FILE`, in the workspace). Like
the runner, it sets no `INPUT_*` variables for a composite action's steps (inputs reach them
only through expressions), gives each step fresh `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`
files and reads them back (`name=value` and `name<<DELIMITER` blocks), sets the default
`GITHUB_*`/`RUNNER_*` variables and `GITHUB_EVENT_PATH` to the event payload, and skips the
remaining steps after one fails. `uses:` steps run only if the caller says how to stand in
for them; anything else (an unknown action, a shell other than bash, an expression outside
the modelled subset, a write to `GITHUB_ENV`/`GITHUB_PATH`) fails the test loudly.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from github.action_expressions import Strict, condition, render, to_text

StandIn = Callable[[Mapping[str, str]], None]


class RunnerError(Exception):
    """The action uses something this stand-in for the runner does not model."""


@dataclass
class StepResult:
    name: str
    outcome: str  # success, failure or skipped
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class ActionResult:
    steps: list[StepResult]
    outputs: dict[str, str]
    summary: str

    @property
    def conclusion(self) -> str:
        failed = any(step.outcome == "failure" for step in self.steps)
        return "failure" if failed else "success"

    @property
    def log(self) -> str:
        return "".join(step.stdout + step.stderr for step in self.steps)

    def annotations(self, level: str) -> list[str]:
        """The `::error::`/`::warning::` workflow commands the steps printed."""
        prefix = f"::{level}::"
        return [
            line.removeprefix(prefix)
            for step in self.steps
            for line in step.stdout.splitlines()
            if line.startswith(prefix)
        ]

    def step(self, name: str) -> StepResult:
        return next(step for step in self.steps if step.name == name)


def read_outputs(text: str) -> dict[str, str]:
    """A GITHUB_OUTPUT file: `name=value` lines and `name<<DELIMITER ... DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line:
            continue
        name, equals, value = line.partition("=")
        if equals and ("<<" not in name):
            outputs[name] = value
            continue
        name, arrows, delimiter = line.partition("<<")
        if not arrows:
            raise RunnerError(f"GITHUB_OUTPUT line is not name=value or name<<EOF: {line!r}")
        block: list[str] = []
        for following in lines:
            if following == delimiter:
                break
            block.append(following)
        else:
            raise RunnerError(f"GITHUB_OUTPUT block {name} is not closed by {delimiter}")
        outputs[name] = "\n".join(block)
    return outputs


@dataclass
class Runner:
    """The job around the action: where it runs and what the `github` context holds."""

    workspace: Path
    temp: Path
    event_name: str
    event: Mapping[str, Any]
    repository: str
    api_url: str
    token: str
    path: str
    stand_ins: Mapping[str, StandIn] = field(default_factory=dict)
    extra_env: Mapping[str, str] = field(default_factory=dict)

    def base_env(self, action_path: Path, event_path: Path) -> dict[str, str]:
        pull = self.event.get("pull_request") or {}
        return {
            "PATH": self.path,
            "HOME": os.environ.get("HOME", str(self.temp)),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(action_path),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": self.repository.split("/")[0],
            "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_SHA": str(pull.get("merge_commit_sha") or "0" * 40),
            "GITHUB_REF": f"refs/pull/{pull.get('number', 0)}/merge",
            "GITHUB_HEAD_REF": str((pull.get("head") or {}).get("ref", "")),
            "GITHUB_BASE_REF": str((pull.get("base") or {}).get("ref", "")),
            "GITHUB_API_URL": self.api_url,
            "GITHUB_GRAPHQL_URL": f"{self.api_url}/graphql",
            "GITHUB_SERVER_URL": "https://github.com",
            "RUNNER_TEMP": str(self.temp),
            "RUNNER_OS": "Linux",
            **self.extra_env,
        }

    def github_context(self, action_path: Path) -> Strict:
        return Strict(
            {
                "token": self.token,
                "action_path": str(action_path),
                "event": self.event,
                "event_name": self.event_name,
                "repository": self.repository,
                "api_url": self.api_url,
                "workspace": str(self.workspace),
            }
        )


class CompositeRun:
    """One run of the composite action at `action_path` with the given `with:` inputs."""

    def __init__(self, action_path: Path, runner: Runner, inputs: Mapping[str, str]) -> None:
        self.action_path = action_path
        self.runner = runner
        self.metadata = yaml.safe_load((action_path / "action.yml").read_text(encoding="utf-8"))
        if self.metadata["runs"]["using"] != "composite":
            raise RunnerError("only composite actions are modelled")
        self.inputs = self._inputs(inputs)
        self.steps: dict[str, dict[str, Any]] = {}  # lenient, as GitHub's `steps` context is

    def _inputs(self, given: Mapping[str, str]) -> dict[str, str]:
        declared: Mapping[str, Mapping[str, Any]] = self.metadata.get("inputs") or {}
        unknown = set(given) - set(declared)
        if unknown:
            raise RunnerError(f"inputs the action does not declare: {sorted(unknown)}")
        contexts = {"github": self.runner.github_context(self.action_path)}
        values: dict[str, str] = {}
        for name, spec in declared.items():
            if name in given:
                values[name] = given[name]
            elif spec.get("required"):
                raise RunnerError(f"required input {name} not given")
            else:
                values[name] = render(to_text(spec.get("default", "")), contexts)
        return values

    def contexts(self) -> dict[str, Any]:
        return {
            "inputs": Strict(self.inputs),
            "github": self.runner.github_context(self.action_path),
            "runner": Strict({"temp": str(self.runner.temp), "os": "Linux"}),
            "steps": self.steps,
        }

    def run(self) -> ActionResult:
        self.runner.temp.mkdir(parents=True, exist_ok=True)
        event_path = self.runner.temp / "event.json"
        event_path.write_text(json.dumps(self.runner.event), encoding="utf-8")
        base = self.runner.base_env(self.action_path, event_path)
        results: list[StepResult] = []
        summary: list[str] = []
        status = "success"
        for index, step in enumerate(self.metadata["runs"]["steps"]):
            name = step.get("name") or step.get("id") or f"step {index}"
            if not condition(str(step.get("if", "success()")), self.contexts(), status):
                results.append(StepResult(name, "skipped"))
                self._record(step, "skipped", {})
                continue
            result = self._step(index, name, step, base, summary)
            results.append(result)
            self._record(step, result.outcome, result.outputs)
            if result.outcome == "failure":
                status = "failure"
        outputs = {
            name: render(to_text(spec["value"]), self.contexts())
            for name, spec in (self.metadata.get("outputs") or {}).items()
        }
        return ActionResult(results, outputs, "".join(summary))

    def _record(self, step: Mapping[str, Any], outcome: str, outputs: dict[str, str]) -> None:
        if "id" in step:
            self.steps[step["id"]] = {"outputs": outputs, "outcome": outcome, "conclusion": outcome}

    def _step(
        self,
        index: int,
        name: str,
        step: Mapping[str, Any],
        base: Mapping[str, str],
        summary: list[str],
    ) -> StepResult:
        env = dict(base)
        env.update(
            {
                key: render(to_text(value), self.contexts())
                for key, value in step.get("env", {}).items()
            }
        )
        files = {
            variable: self.runner.temp / f"{variable.lower()}-{index}"
            for variable in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH")
        }
        for variable, path in files.items():
            path.write_text("", encoding="utf-8")
            env[variable] = str(path)
        if "uses" in step:
            result = self._uses(name, step, env)
        else:
            result = self._script(index, name, step, env)
        for variable in ("GITHUB_ENV", "GITHUB_PATH"):
            if files[variable].read_text(encoding="utf-8"):
                raise RunnerError(f"{name}: writes to {variable} are not modelled (nor wanted)")
        result.outputs = read_outputs(files["GITHUB_OUTPUT"].read_text(encoding="utf-8"))
        summary.append(files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8"))
        return result

    def _uses(self, name: str, step: Mapping[str, Any], env: Mapping[str, str]) -> StepResult:
        action = str(step["uses"]).partition("@")[0]
        stand_in = self.runner.stand_ins.get(action)
        if stand_in is None:
            raise RunnerError(f"{name}: no stand-in for the action {step['uses']}")
        contexts = self.contexts()
        stand_in(
            {key: render(to_text(value), contexts) for key, value in step.get("with", {}).items()}
        )
        return StepResult(name, "success", 0)

    def _script(
        self, index: int, name: str, step: Mapping[str, Any], env: Mapping[str, str]
    ) -> StepResult:
        if step.get("shell") != "bash":
            raise RunnerError(f"{name}: only shell: bash is modelled, not {step.get('shell')}")
        script = self.runner.temp / f"step-{index}.sh"
        script.write_text(str(step["run"]), encoding="utf-8")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.runner.workspace,
            env=dict(env),
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        outcome = "success" if done.returncode == 0 else "failure"
        return StepResult(name, outcome, done.returncode, done.stdout, done.stderr)


def current_path(*first: Path) -> str:
    """PATH with `first` ahead of this machine's PATH."""
    return os.pathsep.join([*(str(path) for path in first), os.environ.get("PATH", "")])
