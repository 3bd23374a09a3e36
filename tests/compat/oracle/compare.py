"""Compare two captures (see :mod:`.capture`) field by field.

Captures are already normalised (ids, paths, ports, times), so what is left is meant to be
deterministic: :func:`differences` walks both JSON values and reports every path where they
differ, except paths matching an ignore pattern (``fnmatch`` patterns over ``/``-joined paths,
e.g. ``"*/pynimbus.*"``).

Slot choice: 1.2.4's even scheduler walks supervisors in Java ``HashMap`` order, which a
re-implementation may or may not reproduce.  With ``assignment="shape"`` every Assignment is
replaced by its shape before comparing: how executors are grouped into workers and how many
workers each node runs, without which node/port got which group
(:func:`assignment_shape`).  ``assignment="exact"`` (default) compares node ids and ports too.

Used by ``tests/compat/test_oracle_live.py`` (pynimbus vs a live Java Nimbus) and meant for a
default-run test comparing pynimbus with the committed goldens (:func:`load_goldens`).
"""

import collections
import fnmatch
import json
import os

from . import GOLDENS_DIR

Difference = collections.namedtuple("Difference", "path expected actual")

# Never part of what must match: free text we wrote, and the harness's own bookkeeping.
ALWAYS_IGNORED = (
    "*/notes",
    "*/target_generation",
    # pynimbus's own configuration keys (defaults it adds to every conf map)
    "*/pynimbus.*",
)

# Facts of the Java run that a pynimbus run cannot share: the upload location's layout under
# storm.local.dir is an implementation detail (clients pass it back unchanged).
LOOSE_IGNORED = ALWAYS_IGNORED + (
    "*/upload_location",
    # gzip output differs between zlib settings and versions; the content is compared instead
    "*/blobs/content/*-stormcode.ser/length",
)


# Components "." and "..": pynimbus stores their errors under %2E segments and answers
# getTopologyInfo and their component pages; Storm cannot (ZooKeeper refuses the segment) and
# fails with INTERNAL_ERROR.
DOT_COMPONENTS_ANSWERED = ("/topology_info", "/task_to_component",
                           "/pages/topology_info_executor_order", "/pages/components/.",
                           "/pages/components/..")
# Forged ids: pynimbus answers NotAliveException(id) for topology ids that are no valid blob
# key (1.2.4: AuthorizationException "<id>-stormconf.ser does not appear to be a valid blob
# key", 2.8.3: INTERNAL_ERROR), NotAliveException naming an unknown component (Storm:
# INTERNAL_ERROR) and an empty history for a user with NUL (1.2.4 drops the connection, 2.8.3:
# INTERNAL_ERROR).
FORGED_IDS_ANSWERED = ("/forged_ids/component_pages", "/forged_ids/topology_history/x\x00y",
                       "/forged_ids/topology_ids/a/b", "/forged_ids/topology_ids/x\x00y",
                       "/forged_ids/topology_ids/../../etc")

# Where pynimbus differs from Storm on purpose: comparisons of *pynimbus* against goldens (never
# of a Java Nimbus) ignore exactly these paths, per generation and reference id.
DELIBERATE_DIFFERENCES = {
    "1.x": {
        # A blank or empty name is refused with InvalidTopologyException "Topology name cannot
        # be blank" (the issue asks for it); 1.2.4 crashes on it with an INTERNAL_ERROR.
        "bad_name_blank": ("/submit", "/name_allowed_before"),
        "bad_name_empty": ("/submit", "/name_allowed_before"),
        # ... and isTopologyNameAllowed of a blank name answers false (1.2.4: INTERNAL_ERROR).
        "_nimbus": ("/name_probes/", "/name_probes/   "),
        # Null SubmitOptions: TApplicationException INTERNAL_ERROR with a message; 1.2.4 fails
        # an assertion and drops the connection.
        "bad_null_options": ("/submit",),
        # An unknown uploaded jar location: InvalidTopologyException with an actionable
        # message; Storm fails while copying it (INTERNAL_ERROR).
        "bad_jar_location": ("/submit",),
        "component_id_dots": DOT_COMPONENTS_ANSWERED,
        # ... and getTopologySummary is served in 1.x mode too (the union IDL)
        "forged_ids": FORGED_IDS_ANSWERED + ("/forged_ids/topology_ids/*/getTopologySummary",),
        # A component's kryo value Clojure cannot seq (a number), or decorators given as a
        # string (whose characters 1.2.4 writes unquoted into the conf): InvalidTopologyException
        # naming the key and component; 1.2.4 fails with an INTERNAL_ERROR.
        "kryo_register_number_in_component": ("/submit",),
        "kryo_decorators_string_in_component": ("/submit",),
    },
    "2.x": {
        # An unknown uploaded jar location, as in 1.x (2.8.3: INTERNAL_ERROR).
        "bad_jar_location": ("/submit",),
        "component_id_dots": DOT_COMPONENTS_ANSWERED,
        "forged_ids": FORGED_IDS_ANSWERED,
        # A topology name no blob key may start with: AuthorizationException "<id>-stormconf.ser
        # does not appear to be a valid blob key", as 1.2.4 answers; 2.8.3 fails creating the
        # blob with an INTERNAL_ERROR.  Checked before anything is written, in both modes.
        "bad_name_outside_key_alphabet": ("/submit",),
        "bad_name_outside_key_alphabet_unicode": ("/submit",),
        # A component's kryo value that is not a list (or a registration neither a class
        # name nor a map): InvalidTopologyException naming the key and component; 2.8.3 fails
        # its cast with an INTERNAL_ERROR.
        "kryo_register_string_in_component": ("/submit",),
        "kryo_decorators_string_in_component": ("/submit",),
        "kryo_register_map_in_component": ("/submit",),
        "kryo_register_number_in_component": ("/submit",),
        "kryo_register_odd_entries_in_component": ("/submit",),
    },
}
# Not in the goldens because the real Nimbus cannot answer it (the reference's ``generations``
# leave 2.x out): pynimbus 2.x refuses a negative rebalance worker count with
# InvalidTopologyException, where 2.8.3 stores it and halts (rebalance_negative_workers;
# tests/test_rebalance_checks.py).
# Every reference, both generations: a transition that does not exist (activate while
# KILLED ...) is a TApplicationException INTERNAL_ERROR in both, but pynimbus's message says
# what went wrong ("No transition for event ...", see pynimbus/thrift/errors.py) where Storm's is
# "Internal error processing <method>".  The type and app_type are still compared.
DELIBERATE_EVERYWHERE = ("/lifecycle/*/result/error/message",)


def pynimbus_ignores(generation, ref_id, base=LOOSE_IGNORED):
    """The ignore patterns for comparing pynimbus (``generation``) with a golden of
    ``ref_id``: ``base`` plus the deliberate differences (:data:`DELIBERATE_EVERYWHERE`,
    :data:`GENERATION_IGNORED`, :data:`DELIBERATE_DIFFERENCES`)."""
    return (tuple(base) + DELIBERATE_EVERYWHERE + GENERATION_IGNORED.get(generation, ())
            + DELIBERATE_DIFFERENCES.get(generation, {}).get(ref_id, ()))


# Per compatibility generation, differences of pynimbus that are decisions, not bugs.  1.2.4
# answers the 2.x-only methods with UNKNOWN_METHOD; pynimbus serves the union IDL in both modes
# ("serving the union IDL satisfies both clients", shared/reference/README.md), so in 1.x mode
# those two captures differ by design.  Edit as decisions change.
GENERATION_IGNORED = {
    "1.x": ("*/topology_summary_by_name", "*/topology_summary_by_name/*",
            "*/supervisor_assignments", "*/supervisor_assignments/*"),
    "2.x": (),
}


def assignment_shape(assignment):
    """An Assignment (capture JSON) without slot identities: groups of executors per worker,
    the number of workers per node (sorted), and the distinct worker resources."""
    if not isinstance(assignment, dict) or "executor_node_port" not in assignment:
        return assignment
    workers = collections.defaultdict(list)
    for executor, node_port in assignment.get("executor_node_port", []):
        workers[(node_port["node"], tuple(node_port["port"]))].append(executor)
    per_node = collections.Counter(node for node, _ in workers)
    resources = sorted({json.dumps(r, sort_keys=True)
                        for _, r in assignment.get("worker_resources", [])})
    shape = {
        "workers": sorted(sorted(group) for group in workers.values()),
        "workers_per_node": sorted(per_node.values()),
        "worker_resources": [json.loads(r) for r in resources],
        "executors_with_start_time": sorted(e for e, _ in assignment.get(
            "executor_start_time_secs", [])),
    }
    for key in ("master_code_dir", "owner", "total_shared_off_heap"):
        if key in assignment:
            shape[key] = assignment[key]
    return shape


def _shape_assignments(value, key=None):
    if isinstance(value, dict):
        if key == "assignment" and "executor_node_port" in value:
            return assignment_shape(value)
        return {k: _shape_assignments(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape_assignments(v, key) for v in value]
    return value


def _ignored(path, patterns):
    text = "/" + "/".join(str(p) for p in path)
    return any(fnmatch.fnmatchcase(text, pattern) for pattern in patterns)


def differences(expected, actual, ignore=LOOSE_IGNORED, assignment="exact"):
    """Every difference between two captures, as :class:`Difference` (path as a string)."""
    if assignment == "shape":
        expected, actual = _shape_assignments(expected), _shape_assignments(actual)
    elif assignment != "exact":
        raise ValueError("assignment must be 'exact' or 'shape'")
    out = []
    _walk(expected, actual, (), tuple(ignore), out)
    return out


_MISSING = "<missing>"


def _walk(exp, act, path, ignore, out):
    if _ignored(path, ignore):
        return
    if isinstance(exp, dict) and isinstance(act, dict):
        for key in sorted(set(exp) | set(act), key=str):
            _walk(exp.get(key, _MISSING), act.get(key, _MISSING), path + (key,), ignore, out)
        return
    if isinstance(exp, list) and isinstance(act, list):
        if len(exp) != len(act):
            out.append(Difference("/" + "/".join(map(str, path)), exp, act))
            return
        for i, (e, a) in enumerate(zip(exp, act)):
            _walk(e, a, path + (i,), ignore, out)
        return
    if type(exp) is not type(act) and not (isinstance(exp, (int, float))
                                           and isinstance(act, (int, float))
                                           and not isinstance(exp, bool)
                                           and not isinstance(act, bool)):
        out.append(Difference("/" + "/".join(map(str, path)), exp, act))
        return
    if exp != act:
        out.append(Difference("/" + "/".join(map(str, path)), exp, act))


def format_differences(diffs, limit=40, width=160):
    lines = []
    for d in diffs[:limit]:
        exp = json.dumps(d.expected, sort_keys=True)
        act = json.dumps(d.actual, sort_keys=True)
        lines.append("%s\n    expected: %s\n    actual:   %s"
                     % (d.path, exp[:width], act[:width]))
    if len(diffs) > limit:
        lines.append("... and %d more" % (len(diffs) - limit))
    return "\n".join(lines)


# Goldens

def golden_dir(version):
    return os.path.join(GOLDENS_DIR, version)


def golden_versions():
    """Storm versions with committed goldens."""
    if not os.path.isdir(GOLDENS_DIR):
        return []
    return sorted(d for d in os.listdir(GOLDENS_DIR)
                  if os.path.isdir(os.path.join(GOLDENS_DIR, d)))


def load_golden(version, ref_id):
    with open(os.path.join(golden_dir(version), ref_id + ".json")) as f:
        return json.load(f)


def load_goldens(version):
    """``{reference id: capture}`` (and ``_nimbus``, ``_about``) of one Storm version."""
    out = {}
    for name in sorted(os.listdir(golden_dir(version))):
        if name.endswith(".json"):
            with open(os.path.join(golden_dir(version), name)) as f:
                out[name[:-5]] = json.load(f)
    return out


def compare_to_golden(version, ref_id, capture, **kwargs):
    """Differences between a capture and the committed golden of ``version``."""
    return differences(load_golden(version, ref_id), capture, **kwargs)
