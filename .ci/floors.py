"""The declared floor of every direct dependency in pyproject.toml (runtime, and every extra), as exact pins for
pip: ``Pillow>=10.1`` → ``Pillow==10.1``; a requirement without a floor is written as it is. Printed one a line, for
``.ci/min-versions``. Exits 1 naming any floor given twice with different versions."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement


def floors(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text())["project"]
    declared = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        declared += extra
    pins: dict[str, str] = {}
    for text in declared:
        requirement = Requirement(text)
        lowest = [s.version for s in requirement.specifier if s.operator == ">="]
        pin = f"{requirement.name}=={lowest[0]}" if lowest else text
        if pins.setdefault(requirement.name.lower(), pin) != pin:
            sys.exit(f"{requirement.name}: two floors, {pins[requirement.name.lower()]} and {pin}")
    return list(pins.values())


if __name__ == "__main__":
    print("\n".join(floors(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml"))))
