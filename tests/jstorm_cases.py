"""Placement cases for JStorm 2.2.1's scheduler (the JSON of ``pynimbus.jstorm_port.case_json``),
made from a seed: topologies with fields/shuffle/all groupings and skewed parallelism, uneven
supervisors, NEW, REBALANCE and MONITOR rounds, user-defined and old assignments,
``task.on.differ.node`` and the topology master alone or shared.

A REBALANCE or MONITOR case starts from the NEW placement the port made of the same topology
(``previous``), so the old assignment is one JStorm could have written; the oracle test checks
the NEW placement too, so a wrong start shows up there first.
"""

import copy
import json
import random

from pynimbus.jstorm_port.case_json import place_case

ACKER = "__acker"
TOPOLOGY_MASTER = "__topology_master"
GROUPINGS = ("shuffle", "fields", "all")


def _supervisor_id(rng):
    return "%08x-%04x-%04x-%04x-%012x" % tuple(rng.getrandbits(b) for b in (32, 16, 16, 16, 48))


def random_supervisors(rng, count):
    """``count`` supervisors with uneven port sets (a few with 17 to 20 ports, so a port set's
    ``HashSet`` order is not ascending) and some ports taken by other topologies."""
    supervisors = []
    for i in range(count):
        first = rng.choice((6700, 6800, 31000))
        n_ports = rng.choice((1, 2, 3, 4, 4, 4, 6, 8, 17, 20))
        ports = list(range(first, first + n_ports))
        rng.shuffle(ports)
        used = sorted(rng.sample(ports, rng.randint(0, max(0, n_ports // 3))))
        supervisors.append({"id": _supervisor_id(rng), "hostname": "10.0.%d.%d" % (i // 200, i + 1),
                            "ports": ports, "used_ports": used})
    return supervisors


def random_topology(rng):
    """Spouts and bolts in a chain or a diamond, skewed parallelism, mixed groupings."""
    spouts = dict(("spout%d" % i, {"parallelism": rng.choice((1, 2, 3, 5, 8))})
                  for i in range(rng.randint(1, 2)))
    bolts = {}
    upstream = list(spouts)
    for i in range(rng.randint(1, 4)):
        name = "bolt%d" % i
        inputs = rng.sample(upstream, rng.randint(1, min(2, len(upstream))))
        bolts[name] = {"parallelism": rng.choice((1, 2, 3, 4, 6, 9, 17)), "inputs": inputs,
                       "groupings": [rng.choice(GROUPINGS) for _ in inputs]}
        upstream.append(name)
    return {"spouts": spouts, "bolts": bolts}


def numbered_tasks(parallelism):
    """Task ids as Storm numbers them (components sorted by id, tasks from 1), as a case's
    ``task_to_component``."""
    tasks, next_id = {}, 1
    for cid in sorted(parallelism):
        for _ in range(parallelism[cid]):
            tasks[str(next_id)] = cid
            next_id += 1
    return tasks


def task_to_component(topology, ackers, with_topology_master=True):
    """The tasks of ``topology``, ``ackers`` ackers and (optionally) the topology master."""
    parallelism = dict((cid, c["parallelism"]) for kind in ("spouts", "bolts")
                       for cid, c in topology[kind].items())
    if ackers:
        parallelism[ACKER] = ackers
    if with_topology_master:
        parallelism[TOPOLOGY_MASTER] = 1
    return numbered_tasks(parallelism)


def new_case(rng, n_supervisors=None):
    """A NEW round on a random cluster."""
    topology = random_topology(rng)
    ackers = rng.choice((0, 1, 2, 3))
    with_tm = rng.random() < 0.85
    tasks = task_to_component(topology, ackers, with_tm)
    conf = {"topology.acker.executors": ackers}
    if rng.random() < 0.8:
        conf["topology.workers"] = rng.choice((1, 2, 3, 4, 6, 8, 12, 16))
    tm_single = rng.choice((None, None, True, False))
    if tm_single is not None:
        conf["topology.master.single.worker"] = tm_single
    supervisors = random_supervisors(rng, n_supervisors or rng.randint(1, 8))
    if rng.random() < 0.2:
        conf["worker.memory.size"] = rng.choice((0, 512 * 1024 ** 2, "1073741824"))
        conf["worker.cpu.slot.num"] = rng.choice((1, 2, "4"))
    if len(supervisors) > 2 and rng.random() < 0.15:
        conf["isolation.scheduler.machines"] = [s["hostname"] for s in rng.sample(
            supervisors, rng.randint(1, len(supervisors) - 1))]
    tm_id = next((int(t) for t, c in tasks.items() if c == TOPOLOGY_MASTER), 0)
    return {"assign_type": 0, "storm_conf": conf, "topology": topology,
            "task_to_component": tasks, "topology_master_task_id": tm_id,
            "supervisors": supervisors}


def _old_assignment(placement):
    return {"workers": [dict(w) for w in placement]}


def _with_old_ports_used(supervisors, placement):
    """The cluster as ``getFreeSlots`` leaves it: the old assignment's ports are taken."""
    supervisors = copy.deepcopy(supervisors)
    by_id = dict((s["id"], s) for s in supervisors)
    for w in placement:
        s = by_id.get(w["node_id"])
        if s is not None and w["port"] not in s["used_ports"]:
            s["used_ports"].append(w["port"])
    return supervisors


def follow_up_case(rng, previous, assign_type):
    """A REBALANCE (1) or MONITOR (2) round after ``previous`` (a NEW case the port placed)."""
    placement = place_case(previous)
    if isinstance(placement, dict):
        return None
    case = copy.deepcopy(previous)
    case["assign_type"] = assign_type
    case["old_assignment"] = _old_assignment(placement)
    supervisors = _with_old_ports_used(previous["supervisors"], placement)
    lost = None
    if len(supervisors) > 1 and rng.random() < 0.4:
        lost = rng.choice(supervisors)["id"]
        supervisors = [s for s in supervisors if s["id"] != lost]
    if rng.random() < 0.3:
        supervisors += random_supervisors(rng, 1)
    case["supervisors"] = supervisors
    lost_tasks = [t for w in placement if w["node_id"] == lost for t in w["tasks"]]
    if assign_type == 1:
        case["is_reassign"] = rng.random() < 0.4
        if "topology.workers" in case["storm_conf"] and rng.random() < 0.6:
            case["storm_conf"]["topology.workers"] = rng.choice((1, 2, 3, 5, 8))
        if lost_tasks and rng.random() < 0.5:
            case["unstopped_tasks"] = lost_tasks  # still alive on the lost supervisor
    else:
        workers = [w for w in placement if w["node_id"] != lost]
        dead = list(lost_tasks)
        if workers:
            dead += rng.choice(workers)["tasks"][:1]
        if not dead:
            return None
        rng.shuffle(dead)
        case["dead_tasks"] = dead
    return case


def user_defined_case(rng):
    """A NEW round where ``use.userdefine.assignment`` pins some workers, by host or supervisor,
    one naming a supervisor that is not there."""
    case = new_case(rng, n_supervisors=rng.randint(2, 6))
    components = sorted(set(case["task_to_component"].values()) - {TOPOLOGY_MASTER})
    entries = []
    for _ in range(rng.randint(1, 3)):
        target = rng.choice(case["supervisors"])
        counts = dict((c, rng.randint(1, 2)) for c in rng.sample(components,
                                                                 rng.randint(1, len(components))))
        entry = {"componentToNum": json.dumps(counts), "mem": "0", "cpu": "0",
                 "port": str(rng.choice(target["ports"]))}
        how = rng.choice(("host", "node", "missing"))
        if how == "host":
            entry["hostName"] = target["hostname"]
        elif how == "node":
            entry["nodeId"] = target["id"]
            entry["hostName"] = target["hostname"].upper()
        else:
            entry["nodeId"] = "no-such-supervisor"
            entry["hostName"] = "10.9.9.9"
        entries.append(json.dumps(entry))
    case["storm_conf"]["use.userdefine.assignment"] = entries
    case["storm_conf"]["topology.workers"] = rng.choice((3, 4, 6))
    return case


def differ_node_case(rng):
    """A NEW round where one component asks for ``task.on.differ.node``."""
    case = new_case(rng, n_supervisors=rng.randint(2, 8))
    component = rng.choice(sorted(case["topology"]["bolts"]))
    case["topology"]["bolts"][component]["conf"] = {"task.on.differ.node": True}
    return case


def old_assignment_case(rng):
    """A NEW round of a topology killed and submitted again with ``use.old.assignment``: the
    last assignment of that name is the old one."""
    first = new_case(rng)
    placement = place_case(first)
    if isinstance(placement, dict):
        return None
    case = copy.deepcopy(first)
    case["storm_conf"]["use.old.assignment"] = True
    case["old_assignment"] = _old_assignment(placement)
    return case


def topology_master_case(rng, single):
    """A NEW round on 10 workers or more, the topology master on a worker of its own (or,
    ``single`` False, shared)."""
    case = new_case(rng, n_supervisors=rng.randint(3, 8))
    case["storm_conf"]["topology.workers"] = rng.choice((10, 12, 16))
    case["storm_conf"].pop("topology.master.single.worker", None)
    if not single:
        case["storm_conf"]["topology.master.single.worker"] = False
    elif rng.random() < 0.5:
        case["storm_conf"]["topology.master.single.worker"] = True
    case["storm_conf"]["topology.master.worker.memory.size"] = 512 * 1024 * 1024
    return case


def generated_cases(seed=2021, rounds=12):
    """``(name, case)`` pairs: for each round a NEW case, its REBALANCE and MONITOR follow-ups,
    and one each of user-defined, ``task.on.differ.node``, ``use.old.assignment`` and the
    topology master alone and shared (and their follow-ups); some cases set worker memory and
    cpu slots or ``isolation.scheduler.machines``."""
    rng = random.Random(seed)
    cases = []
    for i in range(rounds):
        makers = [("new", lambda: new_case(rng)),
                  ("userdefine", lambda: user_defined_case(rng)),
                  ("differ-node", lambda: differ_node_case(rng)),
                  ("old-assignment", lambda: old_assignment_case(rng)),
                  ("tm-single", lambda: topology_master_case(rng, True)),
                  ("tm-shared", lambda: topology_master_case(rng, False))]
        for kind, make in makers:
            case = make()
            if case is None:
                continue
            cases.append(("%s-%d" % (kind, i), case))
            if kind != "old-assignment" or rng.random() < 0.5:
                for assign_type, label in ((1, "rebalance"), (2, "monitor")):
                    follow = follow_up_case(rng, case, assign_type)
                    if follow is not None:
                        cases.append(("%s-%d-%s" % (kind, i, label), follow))
    return cases
