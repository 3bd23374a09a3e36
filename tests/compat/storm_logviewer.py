"""Run Storm 1.2.4's own logviewer (``org.apache.storm.daemon.logviewer``, AOT-compiled in
storm-core 1.2.4 from ``.cache/maven``) on a given log directory, for side-by-side checks and
the benchmark.

The command line is ``bin/storm.py logviewer`` of v1.2.4 (``-server -Ddaemon.name=logviewer
-Dstorm.home=... -Dstorm.log.dir=<log dir> ... -Dlogfile.name=logviewer.log
org.apache.storm.daemon.logviewer``, with a smaller heap than ``logviewer.childopts``).  Storm
finds its daemon log directory through the log4j2 appender named ``logviewer.appender.name``
(``A1``), which must be a rolling file appender: the generated log4j2.xml has one, writing
``<log dir>/logviewer-storm.log``.  Its worker logs are ``<log dir>/workers-artifacts``.  Its
cleaner is off (``logviewer.cleanup.interval.secs: null``), so it never deletes what a test
wrote.  Ready once ``/listLogs`` answers 200.
"""

import os

from compat.oracle import maven
from compat.oracle.java_daemon import (
    ASYNC_SELECTOR, JavaDaemon, storm_1x_unavailable_reason, write_storm_yaml)
from nimbus_process import LOOPBACK, free_port

MAIN_CLASS = "org.apache.storm.daemon.logviewer"

LOG4J2_XML = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN" monitorInterval="0">
  <Appenders>
    <RollingFile name="A1" fileName="%(log)s" filePattern="%(log)s.%%i.gz">
      <PatternLayout pattern="%%d{HH:mm:ss.SSS} %%-5level [%%t] %%c{1.} - %%msg%%n"/>
      <Policies><SizeBasedTriggeringPolicy size="100 MB"/></Policies>
      <DefaultRolloverStrategy max="2"/>
    </RollingFile>
  </Appenders>
  <Loggers>
    <Root level="WARN"><AppenderRef ref="A1"/></Root>
  </Loggers>
</Configuration>
"""


class StormLogviewerError(RuntimeError):
    pass


def unavailable_reason():
    """Why Storm 1.2.4's logviewer cannot run here, or None."""
    return storm_1x_unavailable_reason()


class StormLogviewer(JavaDaemon):
    """Storm 1.2.4's logviewer on 127.0.0.1:``port`` over ``log_dir``, with ``conf`` added
    to its storm.yaml (``storm.local.hostname``, ``supervisor.slots.ports``...)."""

    name = "logviewer"
    error = StormLogviewerError
    start_timeout = 90.0
    stop_timeout = 20.0
    not_ready = "did not serve /listLogs"

    def __init__(self, log_dir, conf=None, workdir=None, java=None, heap="-Xmx256m"):
        super().__init__("Storm 1.2.4 logviewer", workdir=workdir,
                         workdir_prefix="pynimbus-storm-logviewer-", java=java)
        self.storm_log_dir = str(log_dir)
        self.extra_conf = dict(conf or {})
        self.heap = heap
        self.port = free_port()

    @property
    def base_url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def storm_conf(self):
        conf = {"logviewer.port": self.port,
                "storm.local.dir": os.path.join(self.workdir, "storm-local"),
                "logviewer.cleanup.interval.secs": None}
        conf.update(self.extra_conf)
        return conf

    def prepare(self):
        classpath = maven.resolve_classpath(maven.STORM_1X)
        home = self.workdir
        os.makedirs(self.log_dir, exist_ok=True)
        conf_file = write_storm_yaml(home, self.storm_conf())
        log4j2 = os.path.join(home, "log4j2.xml")
        with open(log4j2, "w") as f:
            f.write(LOG4J2_XML % {"log": os.path.join(self.storm_log_dir,
                                                      "logviewer-storm.log")})
        return [self.java, "-server", "-Ddaemon.name=logviewer", "-Dstorm.home=" + home,
                "-Dstorm.log.dir=" + self.storm_log_dir,
                "-Dstorm.conf.file=" + conf_file,
                "-cp", os.pathsep.join(list(classpath) + [home, os.path.join(home, "conf")]),
                self.heap, "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true",
                "-Dlogfile.name=logviewer.log", "-DLog4jContextSelector=" + ASYNC_SELECTOR,
                "-Dlog4j.configurationFile=" + log4j2, MAIN_CLASS]

    def readiness(self):
        from logviewer_process import http_get
        try:
            status, _headers, body = http_get(LOOPBACK, self.port, "/listLogs")
        except OSError as e:
            return repr(e)
        return None if status == 200 else "HTTP %s: %s" % (status, body[:300])
