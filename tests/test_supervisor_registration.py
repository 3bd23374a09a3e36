"""Tests of pynimbus.supervisor.registration: the supervisor id and its SupervisorInfo beats."""
# test-case-name: tests.test_supervisor_registration

import pytest
from twisted.internet import defer, task

from pynimbus.cluster import StormClusterState, make_backend
from pynimbus.common.local_state import LocalState
from pynimbus.generated.storm.ttypes import LSSupervisorId
from pynimbus.supervisor import registration


def test_supervisor_id_is_made_once_and_kept(tmp_path):
    """The first start stores a new id; a restart on the same local dir reads it back."""
    conf = {"storm.local.dir": str(tmp_path)}
    made = iter(["id-1", "id-2"])
    assert registration.read_or_make_supervisor_id(conf, lambda: next(made)) == "id-1"
    assert registration.read_or_make_supervisor_id(conf, lambda: next(made)) == "id-1"
    stored = LocalState(str(tmp_path / "supervisor" / "isupervisor")).get("supervisor-id")
    assert stored == LSSupervisorId(supervisor_id="id-1")


def test_supervisor_id_is_a_uuid_by_default(tmp_path):
    """Without ``make_id`` the id is a random UUID, as StandaloneSupervisor makes."""
    import uuid
    supervisor_id = registration.read_or_make_supervisor_id({"storm.local.dir": str(tmp_path)})
    assert str(uuid.UUID(supervisor_id)) == supervisor_id


def test_build_supervisor_info_has_storm_124s_shape():
    """Host, assignment id, used ports, slots as meta, scheduler meta, uptime, version."""
    conf = {"supervisor.slots.ports": [6701, 6700], "supervisor.scheduler.meta": {"rack": "r1"},
            "supervisor.memory.capacity.mb": 2048, "supervisor.cpu.capacity": None}
    info = registration.build_supervisor_info(conf, "host-a", "sup-1", {6701}, 12.7, 1000.4)
    assert (info.time_secs, info.hostname, info.assignment_id) == (1000, "host-a", "sup-1")
    assert info.used_ports == [6701] and info.meta == [6701, 6700]
    assert info.scheduler_meta == {"rack": "r1"} and info.uptime_secs == 12
    assert info.version == "1.2.4"
    assert info.resources_map == {"supervisor.memory.capacity.mb": 2048.0,
                                  "supervisor.cpu.capacity": 400.0}


@pytest.fixture
def embedded_state(embedded_conf):
    state = StormClusterState(make_backend(embedded_conf))
    yield state
    state.close()


def test_heartbeat_writes_now_and_every_frequency(embedded_state):
    """The info is written at start and rewritten each supervisor.heartbeat.frequency.secs."""
    clock = task.Clock()
    clock.advance(5000)
    used = set()
    beat = registration.SupervisorHeartbeat(
        {"supervisor.heartbeat.frequency.secs": 5, "supervisor.slots.ports": [6700, 6701]},
        embedded_state, "sup-1", "host-a", lambda: used, clock,
        run_blocking=defer.maybeDeferred)
    beat.start()
    first = embedded_state.supervisor_info("sup-1")
    assert (first.time_secs, first.uptime_secs, first.used_ports) == (5000, 0, [])
    used.add(6701)
    clock.advance(4.9)
    assert embedded_state.supervisor_info("sup-1").time_secs == 5000
    clock.advance(0.1)
    second = embedded_state.supervisor_info("sup-1")
    assert (second.time_secs, second.uptime_secs, second.used_ports) == (5005, 5, [6701])
    beat.stop()
    clock.advance(10)
    assert embedded_state.supervisor_info("sup-1").time_secs == 5005


def test_failed_heartbeat_does_not_stop_the_beats(embedded_state):
    """A write that fails is logged and the next beat writes again."""
    clock = task.Clock()
    failures = [RuntimeError("ZooKeeper is away")]

    def run_blocking(f, *args):
        if failures:
            return defer.fail(failures.pop())
        return defer.maybeDeferred(f, *args)

    beat = registration.SupervisorHeartbeat(
        {"supervisor.heartbeat.frequency.secs": 5, "supervisor.slots.ports": [6700]},
        embedded_state, "sup-1", "host-a", set, clock, run_blocking=run_blocking)
    beat.start()
    assert embedded_state.supervisor_info("sup-1") is None
    clock.advance(5)
    assert embedded_state.supervisor_info("sup-1").meta == [6700]
    beat.stop()
