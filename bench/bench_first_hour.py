"""README's "Run it" from a fresh clone to the first tuple counted: seconds per step, printed.

What a newcomer does, timed: clone the checkout, make the virtualenv and ``pip install
'.[streamparse]'`` (the README's command; pip's cache makes a second run faster, as it would
for the newcomer's second project), start ``pynimbus dev`` with no argument in an empty
directory until it prints that it runs, ``sparse quickstart wordcount``, ``pynimbus submit
wordcount/topologies/wordcount.py``, then wait until the quickstart's count bolt logs its
first running total (``counted [1,000] words``, its own output in the worker log).  Prints one
line per step and the total; asserts nothing.

Uses Storm's default ports (6627, 6700-6703): nothing else may hold them.

    python bench/bench_first_hour.py                 # the whole way, install included
    python bench/bench_first_hour.py --venv .venv    # an installed virtualenv: no clone
"""

import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COUNTED = re.compile(r"counted \[([\d,]+)\] words")
BOUND_SECS = 600  # every wait below stops by itself


def default_sigint():
    """Ctrl-C's own action in dev, which the bench stops with SIGINT (a shell's background
    job would otherwise hand it SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(argv, cwd, env):
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_for(predicate, what):
    deadline = time.monotonic() + BOUND_SECS
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("gave up after %d s waiting for %s" % (BOUND_SECS, what))
        time.sleep(0.05)


def first_total_counted(work):
    for path in glob.glob(os.path.join(work, "storm-local", "logs", "workers-artifacts", "*",
                                       "*", "worker.log")):
        with open(path, errors="replace") as f:
            if COUNTED.search(f.read()):
                return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", help="an installed virtualenv to use (skips clone and install)")
    args = parser.parse_args()
    top = tempfile.mkdtemp(prefix="pynimbus-first-hour-")
    env = {k: v for k, v in os.environ.items() if k not in ("STORM_CONF_DIR", "PYTHONPATH")}
    env["HOME"] = top
    env["LEIN_ROOT"] = "1"  # sparse refuses to run as root without it
    steps = []
    started = time.monotonic()

    def step(name, since):
        steps.append((name, time.monotonic() - since))
        print("%-44s %7.1f s" % (name, steps[-1][1]), flush=True)
        return time.monotonic()

    t = time.monotonic()
    if args.venv:
        venv = os.path.abspath(args.venv)
    else:
        clone = os.path.join(top, "pynimbus")
        run(["git", "clone", "-q", REPO, clone], top, env)
        t = step("git clone", t)
        run([sys.executable, "-m", "venv", ".venv"], clone, env)
        run([os.path.join(clone, ".venv", "bin", "pip"), "install", "-q", ".[streamparse]"],
            clone, env)
        venv = os.path.join(clone, ".venv")
        t = step("venv and pip install '.[streamparse]'", t)
    bin_dir = os.path.join(venv, "bin")
    work = os.path.join(top, "play")
    os.makedirs(work)
    out_path = os.path.join(work, "dev.out")
    with open(out_path, "wb") as out:
        dev = subprocess.Popen([os.path.join(bin_dir, "pynimbus"), "dev"], cwd=work, env=env,
                               stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                               preexec_fn=default_sigint)
    try:
        def dev_says(text):
            with open(out_path, errors="replace") as f:
                return text in f.read() or dev.poll() is not None
        wait_for(lambda: dev_says("pynimbus dev is running"), "pynimbus dev to start")
        if dev.poll() is not None:
            raise SystemExit("pynimbus dev exited with code %s" % dev.returncode)
        t = step("pynimbus dev running", t)
        run([os.path.join(bin_dir, "sparse"), "quickstart", "wordcount"], work, env)
        t = step("sparse quickstart wordcount", t)
        run([os.path.join(bin_dir, "pynimbus"), "submit", "wordcount/topologies/wordcount.py"],
            work, env)
        t = step("pynimbus submit", t)
        wait_for(lambda: first_total_counted(work), "the first running total")
        step("first words counted (counted [1,000] words)", t)
    finally:
        dev.send_signal(signal.SIGINT)
        try:
            dev.wait(60)
        except subprocess.TimeoutExpired:
            dev.kill()
    print("%-44s %7.1f s" % ("total, README's Run it to words counted",
                             time.monotonic() - started))
    shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
