"""The package's own tests run against the repository's built CLI (`npm run build` first): the
plugin's fixtures start it with CBM_COMMAND, which defaults to `node <repo>/dist/bin/cli.js`."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import List

import pytest

CLI = Path(__file__).resolve().parents[2] / "dist" / "bin" / "cli.js"


def _command() -> List[str]:
    if os.environ.get("CBM_COMMAND"):
        return shlex.split(os.environ["CBM_COMMAND"])
    if not CLI.is_file():
        raise pytest.UsageError(f"{CLI} is missing: run `npm run build` in the repository first, or set CBM_COMMAND")
    return ["node", str(CLI)]


def pytest_configure(config: pytest.Config) -> None:
    # The plugin's own way in, so these tests drive the fixtures as a user's would.
    os.environ["CBM_COMMAND"] = shlex.join(_command())


@pytest.fixture(scope="session")
def cli_command() -> List[str]:
    """The CLI's command line, for the tests that start mocks of their own."""
    return shlex.split(os.environ["CBM_COMMAND"])
