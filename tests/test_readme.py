"""The README's set-up commands are the ones CI runs, and the shipped rules match the team's spec."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    command = [line for line in ci if "pytest" in line and not line.startswith("#")]
    assert len(command) == 1
    assert f"\n{command[0]}\n" in readme


def test_readme_install_and_run_command_starts_the_bot():
    readme = (ROOT / "README.md").read_text()
    assert "\npython3 -m venv .venv && .venv/bin/pip install -q '.[embedded]' && .venv/bin/python -m bot\n" in readme


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "engine" / "rules").glob("*.md")))
def test_shipped_rules_match_the_spec(name):
    """Every rules file engine/rules/ ships (one a game) is the team's spec, word for word."""
    spec = ROOT.parent / "shared" / "rules" / name
    if not spec.exists():
        pytest.skip("../shared/rules is not beside this checkout")
    assert (ROOT / "engine" / "rules" / name).read_text() == spec.read_text()
