"""Storm 1.2.4's own DRPC daemon (``storm drpc``: ``org.apache.storm.daemon.drpc`` of
storm-core, from Maven Central) on loopback, as an oracle and a benchmark's other side.

The command line is ``bin/storm.py drpc``'s (``-server``, ``-Ddaemon.name=drpc``, the storm
home and conf file, the daemon classpath) with a smaller heap than ``drpc.childopts``; ready
once its invocations port answers ``fetchRequest``.
"""

import os

from thrift.Thrift import TException

from compat.oracle import maven
from compat.oracle.java_daemon import JavaDaemon, storm_1x_unavailable_reason, write_storm_yaml
from nimbus_process import LOOPBACK, free_port
from pynimbus.drpc import DRPCInvocationsClient

MAIN_CLASS = "org.apache.storm.daemon.drpc"


class StormDRPCError(RuntimeError):
    pass


class StormDRPC(JavaDaemon):
    """Storm 1.2.4's DRPC daemon on free loopback ports (``port``, ``invocations_port``,
    ``http_port``)."""

    name = "drpc"
    error = StormDRPCError
    start_timeout = 90.0
    not_ready = "did not answer fetchRequest"

    def __init__(self, conf=None, workdir=None, java=None):
        super().__init__("Storm 1.2.4 DRPC", workdir=workdir, workdir_prefix="pynimbus-drpc-",
                         java=java)
        self.extra_conf = dict(conf or {})
        self.port, self.invocations_port, self.http_port = free_port(), free_port(), free_port()

    def storm_conf(self):
        conf = {"drpc.port": self.port, "drpc.invocations.port": self.invocations_port,
                "drpc.http.port": self.http_port,
                "storm.local.dir": os.path.join(self.workdir, "storm-local")}
        conf.update(self.extra_conf)
        return conf

    def prepare(self):
        classpath = maven.resolve_classpath(maven.STORM_1X)
        os.makedirs(self.log_dir, exist_ok=True)
        conf_file = write_storm_yaml(self.workdir, self.storm_conf())
        return [self.java, "-server", "-Ddaemon.name=drpc", "-Dstorm.home=" + self.workdir,
                "-Dstorm.log.dir=" + self.log_dir, "-Dstorm.conf.file=" + conf_file,
                "-Dlogfile.name=drpc.log", "-Xmx384m", "-Djava.net.preferIPv4Stack=true",
                "-cp", os.pathsep.join(list(classpath) + [self.workdir]), MAIN_CLASS]

    def readiness(self):
        try:
            with DRPCInvocationsClient(LOOPBACK, self.invocations_port, timeout=5) as client:
                client.fetchRequest("readiness")
        except (TException, OSError) as e:
            return repr(e)
        return None


def unavailable_reason():
    """Why Storm 1.2.4's DRPC daemon cannot run here, or None."""
    return storm_1x_unavailable_reason()
