"""How long README's test command takes, from a fresh clone: seconds per tox env, printed.

Clones the checkout into a temporary directory and runs README.md's test command there as a
newcomer (or CI) would: ``python3 -m venv .venv && .venv/bin/pip install -q tox &&
.venv/bin/tox`` (the default envs: ``py`` without the tests marked slow, then ``pure``), then
prints the wall-clock total and what tox says each env took (its setup, the install and the
worker's compilation, and its commands).  ``--envs slow,compat`` times what CI runs after it
instead.  The tests must pass for the figure to mean anything: a failing run is said so.
Asserts nothing.

    python bench/bench_test_run.py [--envs ENV,...]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV_LINE = re.compile(r"^\s+(\S+): (OK|FAIL\S*) \(([\d.]+)=setup\[([\d.]+)\]\+cmd\[([\d.]+)\]",
                      re.M)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", help="tox envs to run instead of the default ones")
    args = parser.parse_args()
    top = tempfile.mkdtemp(prefix="pynimbus-test-run-")
    clone = os.path.join(top, "pynimbus")
    subprocess.run(["git", "clone", "-q", REPO, clone], check=True)
    tox = [".venv/bin/tox"] + (["-e", args.envs] if args.envs else [])
    command = "python3 -m venv .venv && .venv/bin/pip install -q tox && " + " ".join(tox)
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", command], cwd=clone, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    total = time.monotonic() - started
    print("README's test command%s in a fresh clone: %.0f s (%.1f min), %s" % (
        " (tox -e %s)" % args.envs if args.envs else "", total, total / 60,
        "passed" if done.returncode == 0 else "FAILED (exit %d)" % done.returncode))
    for env, outcome, secs, setup, cmd in ENV_LINE.findall(done.stdout):
        print("  %-8s %-4s %7.1f s = setup %6.1f s + tests %6.1f s"
              % (env, outcome, float(secs), float(setup), float(cmd)))
    if done.returncode != 0:
        sys.stdout.write(done.stdout[-3000:])
    shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
