"""What every way of starting a mock shares: the error it raises, the wait for its /health, and
the settings it is given as CLI flags."""

from __future__ import annotations

import time
import urllib.error
from typing import Callable, List, NamedTuple, Optional, Union

from ._control import _OPENER


class MockStartError(RuntimeError):
    """The mock did not start: the message is the CLI's own one-line error where it gave one."""


def wait_for_health(url: str, timeout: float = 30.0, alive: Optional[Callable[[], Optional[str]]] = None) -> None:
    """Returns once ``url``/health answers 200; raises MockStartError after ``timeout`` seconds,
    or as soon as ``alive()`` returns a reason the mock is gone."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    while True:
        try:
            with _OPENER.open(f"{url.rstrip('/')}/health", timeout=5) as res:
                res.read()
                return
        except urllib.error.HTTPError as e:
            last = f"status {e.code}"
        except (urllib.error.URLError, OSError) as e:
            last = str(getattr(e, "reason", e))
        gone = alive() if alive else None
        if gone:
            raise MockStartError(gone)
        if time.monotonic() >= deadline:
            raise MockStartError(f"cloud-browser-mock at {url}: /health did not answer 200 within {timeout:g} s ({last})")
        time.sleep(0.1)


def healthy_or_stopped(url: str, timeout: float, gone: Callable[[], Optional[str]], stop: Callable[[], None]) -> None:
    """A mock this process started: healthy, or stopped before the error goes up."""
    try:
        wait_for_health(url, timeout, gone)
    except BaseException:
        stop()
        raise


class Settings(NamedTuple):
    """What a started mock is told, as CLI flags (a flag beats the CLI's own CBM_ variable)."""

    scenario: Optional[str]
    auth: Optional[str]
    seed: Union[int, str, None]
    log_level: str

    def flags(self, spec: Optional[str]) -> List[str]:
        flags = ["--log-level", self.log_level]
        for flag, value in (("--scenario", self.scenario), ("--auth", self.auth), ("--seed", self.seed), ("--spec", spec)):
            if value is not None:
                flags += [flag, str(value)]
        return flags


def last_line(text: str) -> str:
    return next((line for line in reversed(text.splitlines()) if line.strip()), "")
