"""engine/ and render/ pass mypy's strict checks (pyproject.toml [tool.mypy]): every function typed, no ``Any``
leaking out, generics with their arguments, no stale ``# type: ignore``. The game contract (engine/contract.py,
render/contract.py) is held by the type checker, not only by duck typing: each engine, AI and renderer module
assigns itself to its Protocol under ``TYPE_CHECKING``, and mypy checks the assignment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_engine_and_render_type_check_strictly():
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", os.devnull, "engine", "render"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("Success: no issues found"), run.stdout
