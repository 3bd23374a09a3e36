#!/usr/bin/env python3
"""Write JStorm 2.2.1's placements of a few generated cases to the committed goldens.

Runs the JStorm oracle (``tests/compat/oracle/jstorm.py``: jstorm-core 2.2.1 from Maven Central,
our harness compiled against it) on ``tests/jstorm_cases.generated_cases(seed, rounds)`` and
writes ``tests/compat/goldens/jstorm-2.2.1/placements.json``: each case with JStorm's placement.
``tests/test_jstorm_port.py`` checks the port against them in the default run, without a JVM.
Only data is written; jars stay in ``.cache/``.

    python scripts/recapture_jstorm_goldens.py            # seed 7, 3 rounds
    python scripts/recapture_jstorm_goldens.py --check    # exit 1 if the goldens differ
"""

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from jstorm_cases import generated_cases  # noqa: E402
from compat.oracle.jstorm import jstorm_placements  # noqa: E402

GOLDEN = os.path.join(REPO, "tests", "compat", "goldens", "jstorm-2.2.1", "placements.json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    cases = generated_cases(args.seed, args.rounds)
    placements = jstorm_placements([case for _, case in cases])
    about = {"jstorm": "2.2.1", "seed": args.seed, "rounds": args.rounds}
    lines = [json.dumps({"name": name, "case": case, "jstorm": placement}, sort_keys=True)
             for (name, case), placement in zip(cases, placements)]
    text = '{"about": %s,\n "cases": [\n%s\n]}\n' % (json.dumps(about, sort_keys=True),
                                                    ",\n".join(lines))  # a case per line
    if args.check:
        with open(GOLDEN) as f:
            same = f.read() == text
        print("goldens %s" % ("match" if same else "DIFFER"))
        return 0 if same else 1
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    with open(GOLDEN, "w") as f:
        f.write(text)
    print("wrote %d cases to %s" % (len(cases), GOLDEN))
    return 0


if __name__ == "__main__":
    sys.exit(main())
