"""A stand-in for ``python -m pynimbus.worker`` in the supervisor daemon's unit tests.

Takes the worker's launch arguments (``--conf CONF_JSON STORM_ID SUPERVISOR_ID PORT
WORKER_ID``), runs in the worker's directory as the real worker does, and does only what the
supervisor watches: its pid file, one child standing in for a multilang subprocess (its pid
file too), one LocalState heartbeat for the executors of the test key ``standin.executors``
(stamped with the current time), then waits (at most two minutes) to be killed.  With
``standin.ignore.sigterm`` it ignores SIGTERM, so only SIGKILL ends it; with
``standin.no.heartbeat`` it never beats.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

from pynimbus.common.local_state import LocalState
from pynimbus.generated.storm.ttypes import ExecutorInfo, LSWorkerHeartbeat


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conf", required=True)
    parser.add_argument("storm_id")
    parser.add_argument("supervisor_id")
    parser.add_argument("port", type=int)
    parser.add_argument("worker_id")
    args = parser.parse_args()
    with open(args.conf) as f:
        conf = json.load(f)
    open(os.path.join("pids", str(os.getpid())), "w").close()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    open(os.path.join("pids", str(child.pid)), "w").close()
    if conf.get("standin.ignore.sigterm"):  # after the child started: it would inherit it
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if conf.get("standin.no.heartbeat"):
        time.sleep(120)  # a worker stuck before its first heartbeat
    LocalState("heartbeats").put("worker-heartbeat", LSWorkerHeartbeat(
        time_secs=int(time.time()), topology_id=args.storm_id, port=args.port,
        executors=[ExecutorInfo(s, e) for s, e in conf["standin.executors"]]))
    time.sleep(120)  # the supervisor kills it long before


if __name__ == "__main__":
    main()
