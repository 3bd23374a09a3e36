"""``python -m pynimbus.worker --conf CONF_JSON STORM_ID SUPERVISOR_ID PORT WORKER_ID``: one
worker process, as a supervisor launches it (Storm 1.2.4's ``worker.clj -main`` takes the same
four positional arguments; the conf comes from the supervisor's JSON file instead of the
JVM's system properties).  Output goes to stdout/stderr, which the supervisor redirects."""

import argparse
import json
import logging
import sys

from pynimbus.common.compiled import describe
from pynimbus.worker.daemon import run_worker

log = logging.getLogger("pynimbus.worker")


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m pynimbus.worker",
                                     description="Run one Storm worker (launched by a supervisor).")
    parser.add_argument("--conf", required=True, metavar="CONF_JSON",
                        help="the supervisor's effective configuration, as a JSON file")
    parser.add_argument("storm_id")
    parser.add_argument("supervisor_id")
    parser.add_argument("port", type=int)
    parser.add_argument("worker_id")
    parser.add_argument("--log-level", default="INFO",
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with open(args.conf) as f:
        conf = json.load(f)
    log.info("worker %s of %s on port %d; its hot modules: %s", args.worker_id, args.storm_id,
             args.port, describe())
    return run_worker(conf, args.storm_id, args.supervisor_id, args.port, args.worker_id)


if __name__ == "__main__":
    sys.exit(main())
