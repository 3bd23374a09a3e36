"""The first hour, as a newcomer lives it: README.md's "Run it" and docs/quickstart.md, run as
written, in a fresh directory, with every default.

The package is the one this test run installed (what the README's ``pip install`` makes: tox
installs it the same way), so its console scripts are beside this Python.  Nothing else is
given: no ``storm.local.dir``, no port, no ``--nimbus``.  So these tests need Storm's default
ports free on this machine (Nimbus 6627, slots 6700-6703); no other test uses them.

:func:`test_the_readme_run_command_runs_a_sparse_quickstart_project` starts ``pynimbus dev`` as
the README says, lays out a project with ``sparse quickstart``, submits it with ``pynimbus
submit``, and counts what the topology's own count bolt logs; the workers listen on loopback
only.  :func:`test_the_quickstart_doc_runs_as_written` runs the shell blocks of
docs/quickstart.md in order (the install block excepted: this run's install is it).
"""

import glob
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

from nimbus_process import REPO, _default_sigint
from pynimbus_path import child_env
from pynimbus.supervisor import worker_dirs
from pynimbus.supervisor.daemon import process_alive, send_signal

VENV_BIN = os.path.dirname(sys.executable)
PYNIMBUS = os.path.join(VENV_BIN, "pynimbus")
SPARSE = os.path.join(VENV_BIN, "sparse")
QUICKSTART_DOC = os.path.join(REPO, "docs", "quickstart.md")
README = os.path.join(REPO, "README.md")
COUNTED = re.compile(r"counted \[([\d,]+)\] words")
RUN_SECS = 120  # the bound on every wait below

pytestmark = pytest.mark.skipif(
    not os.path.exists(PYNIMBUS),
    reason="pynimbus is not installed as a command beside %s (tox installs it)"
           % sys.executable)


def newcomer_env(home):
    """This run's environment as a newcomer's shell has it: no Storm conf dir, a home of
    their own; as root, sparse wants LEIN_ROOT (it says so and stops without it)."""
    env = child_env()
    env.pop("STORM_CONF_DIR", None)
    env["HOME"] = str(home)
    env["LEIN_ROOT"] = "1"
    return env


class Dev:
    """``pynimbus dev`` started with no argument in ``directory``; its output in a file."""

    def __init__(self, directory, env, argv=(PYNIMBUS, "dev")):
        self.directory = str(directory)
        self.out_path = os.path.join(self.directory, "dev.out")
        self.out = open(self.out_path, "wb")
        self.process = subprocess.Popen(
            list(argv), cwd=self.directory, env=env, stdin=subprocess.DEVNULL,
            stdout=self.out, stderr=subprocess.STDOUT, preexec_fn=_default_sigint)

    def text(self):
        with open(self.out_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_until_running(self, wait_until):
        wait_until(lambda: "pynimbus dev is running" in self.text()
                   or self.process.poll() is not None,
                   timeout=RUN_SECS, what="pynimbus dev to start:\n%s" % self.text())
        assert self.process.poll() is None, self.text()

    def worker_logs(self):
        """The worker logs, found where dev said they are."""
        [template] = re.findall(r"worker logs: +(\S+)", self.text())
        return glob.glob(template.replace("<topology-id>", "*").replace("<port>", "*"))

    def counted(self):
        """The largest running total the quickstart's count bolt logged, or 0."""
        totals = [0]
        for path in self.worker_logs():
            with open(path, errors="replace") as f:
                totals += [int(n.replace(",", "")) for n in COUNTED.findall(f.read())]
        return max(totals)

    def interrupt(self):
        """Ctrl-C; the exit code."""
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(RUN_SECS)
        finally:
            self.out.close()

    def kill(self):
        """Whatever failed: dev stopped (Ctrl-C, then SIGKILL), and any worker it left."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        conf = {"storm.local.dir": os.path.join(self.directory, "storm-local")}
        for worker_id in worker_dirs.worker_ids(conf):
            for pid in worker_dirs.worker_pids(conf, worker_id):
                if process_alive(pid):
                    send_signal(pid, signal.SIGKILL)
        self.out.close()


def run(argv, cwd, env, timeout=RUN_SECS):
    done = subprocess.run(argv, cwd=str(cwd), env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout, done.stderr


def listening_addresses(port):
    """The local IPv4 addresses with a socket listening on ``port`` (from /proc/net/tcp)."""
    found = set()
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, _remote, state = line.split()[1:4]
            address, port_hex = local.split(":")
            if state == "0A" and int(port_hex, 16) == port:  # 0A: LISTEN
                found.add(".".join(str(b) for b in reversed(bytes.fromhex(address))))
    return found


def worker_ports(dev):
    return sorted({int(os.path.basename(os.path.dirname(p))) for p in dev.worker_logs()})


def test_the_readme_run_command_runs_a_sparse_quickstart_project(tmp_path, wait_until):
    """README's `pynimbus dev` in an empty directory, `sparse quickstart wordcount`, `pynimbus
    submit topologies/wordcount.py` in the project: the words are counted (the count bolt's
    own log lines), `pynimbus list`, `status` and the UI's REST API at the address dev prints
    show it running without errors, its worker and the UI listen on 127.0.0.1 only, and
    Ctrl-C stops dev and its workers."""
    with open(README) as f:
        assert ".venv/bin/pynimbus dev\n" in f.read()  # the command this test runs
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    env = newcomer_env(fresh)
    dev = Dev(fresh, env)
    try:
        dev.wait_until_running(wait_until)
        code, out, err = run([SPARSE, "quickstart", "wordcount"], fresh, env)
        assert code == 0, out + err
        project = fresh / "wordcount"
        code, out, err = run([PYNIMBUS, "submit", "topologies/wordcount.py"], project, env)
        assert code == 0, err + dev.text()
        assert "Submitted topology: wordcount" in out
        wait_until(lambda: dev.counted() >= 1000, timeout=RUN_SECS, interval=0.5,
                   what="the count bolt to count 1,000 words (see %s)" % dev.out_path)

        code, out, err = run([PYNIMBUS, "list"], fresh, env)
        assert code == 0, err
        [row] = [line.split() for line in out.splitlines() if line.startswith("wordcount ")]
        assert row[1] == "ACTIVE" and row[-1] == "0", out
        code, out, err = run([PYNIMBUS, "status", "wordcount"], fresh, env)
        assert code == 0, err
        assert out.startswith("Topology wordcount (wordcount-1-") and "Errors" not in out, out

        [url] = re.findall(r"Storm's UI REST API: +(\S+)", dev.text())
        with urllib.request.urlopen(url, timeout=30) as response:  # the URL dev printed
            [shown] = json.loads(response.read().decode("utf-8"))["topologies"]
        assert (shown["name"], shown["status"], shown["workersTotal"]) == (
            "wordcount", "ACTIVE", 1)
        [page] = re.findall(r"the UI, in a browser: +(\S+)", dev.text())
        with urllib.request.urlopen(page, timeout=30) as response:  # the web UI's cluster page
            assert response.headers.get_content_type() == "text/html"
            assert b"<html" in response.read().lower()

        [port] = worker_ports(dev)
        assert port in range(6700, 6704)
        assert listening_addresses(port) == {"127.0.0.1"}
        assert listening_addresses(6627) == {"127.0.0.1"}
        assert listening_addresses(8080) == {"127.0.0.1"}  # the UI's
        assert "storm.local.dir is %s" % (fresh / "storm-local") in dev.text()

        assert dev.interrupt() == 0, dev.text()
        assert listening_addresses(port) == set()  # the worker went with dev
    finally:
        dev.kill()


def shell_blocks(path):
    """The ```sh blocks of a markdown file, in order, each as its text."""
    with open(path) as f:
        return re.findall(r"^```sh\n(.*?)^```", f.read(), flags=re.S | re.M)


def test_the_quickstart_doc_runs_as_written(tmp_path, wait_until):
    """docs/quickstart.md, block by block in a fresh directory: its install block is the
    README's (this run's install stands for it), `pynimbus dev` runs in the background as in
    a second terminal, every other block exits 0, the topology counts words between its
    submit and its kill, and its pynimbus.testing tests pass."""
    blocks = shell_blocks(QUICKSTART_DOC)
    install = [b for b in blocks if "pip install" in b]
    assert len(install) == 1 and "pip install -q '.[streamparse]'" in install[0]
    with open(README) as f:
        assert "pip install -q '.[streamparse]'" in f.read()
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    env = newcomer_env(fresh)
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")  # `. .venv/bin/activate`
    dev = None
    outputs = []
    try:
        for block in blocks:
            if block in install:
                continue
            if block.strip() == "pynimbus dev":
                dev = Dev(fresh, env, argv=["pynimbus", "dev"])
                dev.wait_until_running(wait_until)
                continue
            if "pynimbus kill" in block:  # words counted before the topology goes
                wait_until(lambda: dev.counted() >= 1000, timeout=RUN_SECS, interval=0.5,
                           what="the count bolt to count 1,000 words (see %s)"
                                % dev.out_path)
            code, out, err = run(["bash", "-e", "-c", block], fresh, env, timeout=300)
            assert code == 0, "block:\n%s\nout:\n%s\nerr:\n%s\ndev:\n%s" % (
                block, out, err, dev.text() if dev else "")
            outputs.append(out)
        text = "\n".join(outputs)
        for said in ("Submitted topology: wordcount", "Topology wordcount is running",
                     "Topology wordcount (wordcount-1-", "Topology wordcount is rebalancing",
                     "Killed topology: wordcount", "passed"):
            assert said in text, text
        assert dev is not None and dev.interrupt() == 0, dev.text()
    finally:
        if dev is not None:
            dev.kill()
