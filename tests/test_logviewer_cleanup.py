"""The logviewer's cleanup of old worker logs: the pure choices of 1.2.4 ``cleanup-fn!`` and
``DirectoryCleaner`` on literal listings, one round on a real log root at a given time, and
the timer on a fake clock."""

import os

import yaml
from twisted.internet import defer, task

from pynimbus.logviewer import cleanup
from pynimbus.logviewer.cleanup import LogFile
from pynimbus.logviewer.server import LogCleaner

NOW = 1_800_000_000
MB = 1024 * 1024


def test_select_dirs_for_cleanup_keeps_recently_changed_dirs():
    """Directories unchanged for ``logviewer.cleanup.age.mins`` are chosen, sorted."""
    changes = {"/r/b/6701": NOW - 3600, "/r/a/6700": NOW - 3601, "/r/a/6701": NOW - 10}
    assert cleanup.select_dirs_for_cleanup(changes, NOW, 60) == ["/r/a/6700", "/r/b/6701"]


def test_alive_ids_are_those_with_a_fresh_heartbeat():
    beats = {"w1": NOW - 30, "w2": NOW - 31, "w3": None}
    assert cleanup.alive_worker_ids(beats, NOW, 30) == {"w1"}


def test_dead_worker_dirs_are_those_without_an_alive_worker():
    """A directory without ``worker.yaml`` (id "") counts as dead."""
    dirs = {"/r/a/6700": "w1", "/r/a/6701": "w2", "/r/b/6700": ""}
    assert cleanup.dead_worker_dirs(dirs, {"w1"}) == ["/r/a/6701", "/r/b/6700"]


def test_per_dir_trim_deletes_oldest_rotated_files_never_active_ones():
    files = [LogFile("/d/worker.log", 5 * MB, 10), LogFile("/d/worker.log.1", 3 * MB, 1),
             LogFile("/d/worker.log.2", 3 * MB, 2), LogFile("/d/worker.yaml", 1, 0)]
    chosen = cleanup.delete_oldest_while_too_large({"/d": files}, 7 * MB, True)
    assert chosen == ["/d/worker.log.1", "/d/worker.log.2"]
    assert cleanup.delete_oldest_while_too_large({"/d": files}, 20 * MB, True) == []


def test_global_trim_spares_active_files_of_alive_workers_only():
    """Across directories: a dead worker's ``worker.log`` may go, an alive one's may not;
    nobody's ``worker.yaml`` goes."""
    dirs = {"/alive": [LogFile("/alive/worker.log", 4 * MB, 1),
                       LogFile("/alive/worker.log.1", 1 * MB, 5)],
            "/dead": [LogFile("/dead/worker.log", 4 * MB, 2),
                      LogFile("/dead/worker.yaml", 10, 0)]}
    chosen = cleanup.delete_oldest_while_too_large(dirs, 5 * MB + 10, False, {"/alive"})
    assert chosen == ["/dead/worker.log"]
    chosen = cleanup.delete_oldest_while_too_large(dirs, 3 * MB, False, {"/alive"})
    assert chosen == ["/dead/worker.log", "/alive/worker.log.1"]


def worker_dir(root, topology, port, worker_id, files, mtime):
    """A worker's artifacts directory with ``worker.yaml`` and ``files`` ({name: size}),
    all last changed at ``mtime``."""
    path = root / topology / str(port)
    path.mkdir(parents=True)
    if worker_id is not None:
        (path / "worker.yaml").write_text(yaml.safe_dump({"worker-id": worker_id}))
    for name, size in files.items():
        (path / name).write_bytes(b"x" * size)
    for name in os.listdir(str(path)):
        os.utime(str(path / name), (mtime, mtime))
    os.utime(str(path), (mtime, mtime))
    return path


def conf(**extra):
    base = {"supervisor.worker.timeout.secs": 30, "logviewer.cleanup.age.mins": 10080,
            "logviewer.max.sum.worker.logs.size.mb": 4096,
            "logviewer.max.per.worker.logs.size.mb": 2048}
    base.update(extra)
    return base


def test_a_round_removes_old_dead_workers_dirs_and_keeps_alive_ones(tmp_path):
    """At a time a week after the logs were written: the dead worker's directory (and its
    emptied topology directory) and the one without ``worker.yaml`` go; the alive worker's
    old directory and a recent dead one stay."""
    week = 7 * 24 * 3600
    old = NOW - week - 1
    worker_dir(tmp_path, "a-1-1", 6700, "alive", {"worker.log": 10}, old)
    worker_dir(tmp_path, "b-1-1", 6700, "dead", {"worker.log": 10}, old)
    worker_dir(tmp_path, "c-1-1", 6701, None, {"worker.log": 10}, old)
    worker_dir(tmp_path, "d-1-1", 6702, "dead2", {"worker.log": 10}, NOW - 60)
    removed, deleted = cleanup.cleanup_fn(conf(), str(tmp_path), NOW,
                                          heartbeat_times={"alive": NOW - 5, "dead": NOW - 99})
    assert removed == [str(tmp_path / "b-1-1" / "6700"), str(tmp_path / "c-1-1" / "6701")]
    assert sorted(os.listdir(str(tmp_path))) == ["a-1-1", "d-1-1"]
    assert deleted == []


def test_a_round_trims_sizes_oldest_first(tmp_path):
    """Per worker to half the total at most, then all together."""
    worker_dir(tmp_path, "a-1-1", 6700, "alive",
               {"worker.log": MB, "worker.log.1": MB, "worker.log.2": MB}, NOW - 100)
    os.utime(str(tmp_path / "a-1-1" / "6700" / "worker.log.2"), (NOW - 200, NOW - 200))
    removed, deleted = cleanup.cleanup_fn(
        conf(**{"logviewer.max.sum.worker.logs.size.mb": 6,
                "logviewer.max.per.worker.logs.size.mb": 2.5}),
        str(tmp_path), NOW, heartbeat_times={"alive": NOW})
    assert removed == [] and deleted == [str(tmp_path / "a-1-1" / "6700" / "worker.log.2")]


def test_the_timer_runs_a_round_at_once_and_every_interval(tmp_path):
    """``start-log-cleaner!`` on a fake clock: a round at start, then one per interval, each
    at the clock's time; no interval, no timer."""
    clock = task.Clock()
    clock.advance(NOW)
    rounds = []

    def run_blocking(f, *args):
        rounds.append(args[2])
        return defer.succeed(None)

    cleaner = LogCleaner(conf(**{"logviewer.cleanup.interval.secs": 600}), str(tmp_path),
                         clock, run_blocking)
    cleaner.start()
    assert rounds == [NOW]
    clock.advance(599)
    assert rounds == [NOW]
    clock.advance(1)
    assert rounds == [NOW, NOW + 600]
    cleaner.stop()
    clock.advance(600)
    assert len(rounds) == 2
    idle = LogCleaner(conf(**{"logviewer.cleanup.interval.secs": None}), str(tmp_path), clock,
                      run_blocking)
    idle.start()
    assert len(rounds) == 2
