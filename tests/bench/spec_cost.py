"""What holding the emulator to Discord's spec costs: run test files with the checks on (or off) and print how many
requests, replies and gateway payloads were checked, how many were refused or broke the spec, and the time spent.

Run on demand (not part of the tests), one file at a time on a shared host::

    python tests/bench/spec_cost.py tests/e2e/test_hongkong.py            # checks on (the default)
    python tests/bench/spec_cost.py --off tests/e2e/test_hongkong.py      # checks off: compare the wall time

Prints one line of totals, then the operations and events that took the most checking time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--off", action="store_true", help="turn the spec checks off (DiscordEmulator(spec=False))")
    parser.add_argument("--top", type=int, default=10, help="how many of the costliest operations to list")
    parser.add_argument("pytest_args", nargs="+", help="test files (and any pytest options)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import pytest
    from tests.emulator import spec

    made = []
    original = spec.Conformance.__init__

    def init(self, enabled: bool = True) -> None:
        original(self, enabled and not args.off)
        made.append(self)

    spec.Conformance.__init__ = init  # type: ignore[method-assign]
    started = time.perf_counter()
    rc = pytest.main(args.pytest_args + ["-p", "no:cacheprovider", "-q"])
    wall = time.perf_counter() - started
    checked = {k: sum(c.checked[k] for c in made) for k in ("requests", "replies", "gateway")}
    seconds = sum(c.seconds for c in made)
    print(
        f"spec checks {'off' if args.off else 'on'}: {len(made)} emulators, {checked['requests']} requests, "
        f"{checked['replies']} replies, {checked['gateway']} gateway payloads checked; "
        f"{sum(c.refused for c in made)} requests refused, {sum(len(c.violations) for c in made)} violations; "
        f"{seconds:.2f} s checking of {wall:.1f} s wall"
    )
    timings: dict = {}
    for c in made:
        for key, value in c.timings.items():
            timings[key] = timings.get(key, 0.0) + value
    for key, value in sorted(timings.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {value:7.3f} s  {key}")
    return int(rc)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
