#!/usr/bin/env python3
"""Run the reference topologies against the real Storm Nimbus daemons and write the goldens.

For each Storm version (default: 1.2.4 and the newest 2.x Maven Central serves here, see
``tests/compat/oracle/maven.py``) this starts one throwaway ZooKeeper (Debian's package) and the
real Nimbus on loopback, submits every reference of ``tests/compat/reference_topologies.py``
through pynimbus's Python Thrift client, and writes what it captured to
``tests/compat/goldens/<version>/<reference id>.json`` (plus ``_nimbus.json``: Nimbus conf, leader
and name probes; ``_about.json``: what ran).  Only data is written; jars stay in ``.cache/``.

    python scripts/recapture_goldens.py                    # all versions, all references
    python scripts/recapture_goldens.py --versions 2.8.3   # one version
    python scripts/recapture_goldens.py --check            # capture, diff against the goldens
    python scripts/recapture_goldens.py --only wordcount --merge pages   # one part only

``--check`` exits 1 when a fresh capture differs from the committed goldens (a determinism
check of the harness, or a sign the goldens are stale).  ``--only`` captures a subset; storm ids
count submissions, so a subset changes ``storm_id.counter`` and is not written unless ``--force``.
``--merge KEY`` writes only the ``KEY`` part of each fresh capture into the committed golden of
its reference (which must exist), leaving the rest of the golden as it was: a new part of the
capture (``pages``) can be added without recapturing what the goldens already hold.
``--merge new`` writes the whole capture of each reference that has no golden yet (references
appended to ``REFERENCES``) and adds their ids to ``_about.json``, leaving the existing goldens
as they were; run it over all references (no ``--only``) so the new ones get the storm id
counters of the full order.
"""

import argparse
import json
import os
import re
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(REPO, "tests")
for path in (TESTS, REPO):
    if path not in sys.path:
        sys.path.insert(0, path)

from compat import reference_topologies as refs  # noqa: E402
from compat.oracle import GOLDENS_DIR, maven  # noqa: E402
from compat.oracle.capture import Capturer  # noqa: E402
from compat.oracle.compare import differences, format_differences, load_goldens  # noqa: E402
from compat.oracle.targets import java_target  # noqa: E402
from zookeeper_server import ZooKeeperServer, unavailable_reason  # noqa: E402


def dumps(value):
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def about(target):
    """What ran, with run-specific paths replaced."""
    desc = dict(target.describe)
    desc["jvm_flags"] = [re.sub(re.escape(target.workdir), "<workdir>", f)
                         for f in desc.get("jvm_flags", [])]
    desc["os_user"] = "<os-user>"
    desc["artifacts"] = ["%s:%s:%s" % (a.group, a.artifact, a.version)
                         for a in maven.release(target.label).artifacts]
    desc["nimbus_conf_overrides"] = {
        "nimbus.seeds": ["127.0.0.1"], "storm.local.hostname": "127.0.0.1",
        "nimbus.monitor.freq.secs": 1, "storm.zookeeper.servers": (
            ["localhost"] if target.generation == "1.x" else ["127.0.0.1"])}
    desc["references"] = [r.id for r in refs.REFERENCES]
    if target.label != maven.TARGET_2X and target.generation == "2.x":
        desc["stand_in_for"] = maven.TARGET_2X
    return desc


def write_goldens(version, captures, info, prune=True):
    out_dir = os.path.join(GOLDENS_DIR, version)
    os.makedirs(out_dir, exist_ok=True)
    wanted = set()
    for ref_id, capture in captures.items():
        name = ref_id + ".json"
        wanted.add(name)
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(dumps(capture))
    wanted.add("_about.json")
    with open(os.path.join(out_dir, "_about.json"), "w") as f:
        f.write(dumps(info))
    for name in os.listdir(out_dir) if prune else ():
        if name.endswith(".json") and name not in wanted:
            os.remove(os.path.join(out_dir, name))
    return out_dir


NEW_REFERENCES = "new"


def add_new_goldens(version, captures):
    """Write the capture of each reference without a golden, and list it in ``_about.json``;
    the paths written."""
    out_dir = os.path.join(GOLDENS_DIR, version)
    written = []
    for ref_id, capture in captures.items():
        path = os.path.join(out_dir, ref_id + ".json")
        if ref_id.startswith("_") or os.path.exists(path):
            continue
        with open(path, "w") as f:
            f.write(dumps(capture))
        written.append(path)
    about_path = os.path.join(out_dir, "_about.json")
    with open(about_path) as f:
        info = json.load(f)
    listed = info.get("references", [])
    info["references"] = listed + [r for r in captures if not r.startswith("_")
                                   and r not in listed]
    with open(about_path, "w") as f:
        f.write(dumps(info))
    return written


def merge_goldens(version, captures, key):
    """Write ``capture[key]`` (or its absence) into each existing golden; the paths written.
    ``key`` :data:`NEW_REFERENCES` adds the goldens of new references instead."""
    if key == NEW_REFERENCES:
        return add_new_goldens(version, captures)
    out_dir = os.path.join(GOLDENS_DIR, version)
    written = []
    for ref_id, capture in captures.items():
        path = os.path.join(out_dir, ref_id + ".json")
        if ref_id.startswith("_") or not os.path.exists(path):
            continue
        with open(path) as f:
            golden = json.load(f)
        if key in capture:
            golden[key] = capture[key]
        else:
            golden.pop(key, None)
        with open(path, "w") as f:
            f.write(dumps(golden))
        written.append(path)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", default=",".join(maven.configured_versions()),
                        help="comma-separated Storm versions (default %(default)s)")
    parser.add_argument("--only", help="comma-separated reference ids (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed goldens instead of writing them")
    parser.add_argument("--force", action="store_true", help="write even with --only")
    parser.add_argument("--merge", metavar="KEY",
                        help="write only this part of each capture into the existing goldens "
                             "('new': the goldens of references that have none yet)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    log = (lambda msg: None) if args.quiet else (lambda msg: print(msg, flush=True))
    selected = refs.REFERENCES
    if args.only:
        ids = [i.strip() for i in args.only.split(",") if i.strip()]
        unknown = [i for i in ids if i not in refs.BY_ID]
        if unknown:
            parser.error("unknown reference ids: %s" % ", ".join(unknown))
        selected = [refs.BY_ID[i] for i in ids]
    reason = unavailable_reason()
    if reason:
        print("cannot start ZooKeeper: " + reason, file=sys.stderr)
        return 2

    status = 0
    zookeeper = ZooKeeperServer()
    zookeeper.start()
    try:
        for version in [v.strip() for v in args.versions.split(",") if v.strip()]:
            t0 = time.monotonic()
            try:
                maven.resolve_classpath(version, log=log)
            except maven.MavenUnavailable as e:
                print("Storm %s unavailable: %s" % (version, e), file=sys.stderr)
                status = 2
                continue
            with java_target(version, zookeeper) as target:
                started = time.monotonic() - t0
                log("Storm %s Nimbus leader on %s:%d after %.1f s (%s)" % (
                    version, target.host, target.port, started,
                    target.describe.get("java_version")))
                with Capturer(target, log=log) as capturer:
                    captures = capturer.capture_all(selected)
                info = about(target)
            elapsed = time.monotonic() - t0
            log("Storm %s: %d references in %.1f s (Nimbus start %.1f s)"
                % (version, len(selected), elapsed, started))
            if args.check:
                goldens = load_goldens(version)
                bad = 0
                for ref_id, capture in captures.items():
                    diffs = differences(goldens.get(ref_id), capture, ignore=())
                    if diffs:
                        bad += 1
                        print("== %s/%s differs:\n%s" % (version, ref_id,
                                                         format_differences(diffs)))
                log("Storm %s: %d of %d captures differ from the goldens"
                    % (version, bad, len(captures)))
                status = status or (1 if bad else 0)
            elif args.merge:
                written = merge_goldens(version, captures, args.merge)
                log("merged %r into %d goldens of %s" % (args.merge, len(written), version))
            elif args.only and not args.force:
                log("--only: not writing (storm id counters depend on the full order); "
                    "use --force to write anyway")
            else:
                log("wrote %s" % write_goldens(version, captures, info, prune=not args.only))
    finally:
        zookeeper.stop()
    return status


if __name__ == "__main__":
    sys.exit(main())
