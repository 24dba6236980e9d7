"""Spark on loopback for tests and benchmarks, from the pip ``pyspark`` package's own
scripts and jars: a standalone master and one worker, a Spark Connect server, and a
classic ``local[2]`` session.

Every process listens on 127.0.0.1 only (``SPARK_LOCAL_IP``, explicit hosts and binding
addresses), on ephemeral ports, with its own temporary directories (conf, logs, work,
scratch), its output in one log file, started in its own process group; each start waits
for the process to say it is ready, within a deadline, and fails with the log's tail.
``stop()`` kills the whole group (the ``spark-class`` launcher, the JVM, a worker's
executors), and whatever is still running at exit is stopped then too (``atexit``).

A Spark JVM takes 0.5–1 GB and a Connect server ~9 s to start: a test session shares one
of each (session-scoped fixtures).

The Connect server requires a token (given to it in its environment, never on its command
line).  The Python client sends a token only over TLS, except to ``localhost``, where it
uses gRPC's local credentials: connect with ``sc://localhost:<port>/;token=<token>``
(:attr:`ConnectServer.url`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pyspark

#: The pip package is a Spark distribution: bin/spark-class, bin/spark-submit, jars/.
SPARK_HOME = Path(pyspark.__file__).parent
LOOPBACK = "127.0.0.1"
#: How long a start may take before it fails (a Connect server takes ~9 s here).
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 20.0
#: Memory of the master's and worker's own JVMs, and of a Connect server's driver.
DAEMON_MEMORY = "512m"
DRIVER_MEMORY = "1g"
EXECUTOR_MEMORY = "1g"
#: Environment variables of the test process that would steer a Spark process elsewhere.
_FOREIGN = ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_LOCAL_REMOTE", "SPARK_CONF_DIR",
            "SPARK_CONNECT_AUTHENTICATE_TOKEN", "SPARK_API_MODE", "PYSPARK_SUBMIT_ARGS", "MASTER")


class SparkStartError(RuntimeError):
    """A Spark process exited, or did not say it was ready in time (the log's tail)."""


def free_port() -> int:
    """A port free on loopback now (the process binds it a moment later)."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


# --- one process ---------------------------------------------------------------------------


class SparkProcess:
    """One Spark command in its own process group, its output in ``log``."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.argv, self.env, self.log = name, argv, env, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> SparkProcess:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(self.argv, env=self.env, stdout=out,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)
        _RUNNING.add(self)
        return self

    def wait_for(self, pattern: str, deadline: float) -> re.Match[str]:
        """The first match of ``pattern`` in the log, once the process wrote it."""
        found = re.compile(pattern)
        while True:
            match = found.search(self.log_text())
            if match is not None:
                return match
            if self.process is None or self.process.poll() is not None:
                raise SparkStartError(f"{self.name} exited:\n{self.tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise SparkStartError(f"{self.name} was not ready in time:\n{self.tail()}")
            time.sleep(0.1)

    def log_text(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def tail(self, chars: int = 3000) -> str:
        return self.log_text()[-chars:]

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Ends the process group: SIGTERM, then SIGKILL past ``STOP_TIMEOUT_S``."""
        process = self.process
        _RUNNING.discard(self)
        if process is None:
            return
        for sig, wait in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, STOP_TIMEOUT_S)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
            try:
                process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
            if not _group_alive(process.pid):
                return
            time.sleep(0.2)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_RUNNING: set[SparkProcess] = set()


@atexit.register
def stop_all() -> None:
    """Stops every Spark process still running (at exit, and for a test's teardown)."""
    for process in list(_RUNNING):
        process.stop()


# --- the environment -------------------------------------------------------------------------


class SparkDirs:
    """A Spark process's own directories under one temporary root (removed by ``clean``)."""

    def __init__(self, name: str, root: Path | None = None) -> None:
        self.root = Path(tempfile.mkdtemp(prefix=f"spark-{name}-", dir=root))
        self.conf = self.root / "conf"
        self.logs = self.root / "logs"
        self.work = self.root / "work"
        self.scratch = self.root / "scratch"
        for d in (self.conf, self.logs, self.work, self.scratch):
            d.mkdir()
        (self.conf / "log4j2.properties").write_text(_LOG4J, encoding="utf-8")

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _FOREIGN}
        env.update({
            "SPARK_HOME": str(SPARK_HOME),
            "SPARK_LOCAL_IP": LOOPBACK,
            "SPARK_LOCAL_HOSTNAME": "localhost",
            "SPARK_CONF_DIR": str(self.conf),
            "SPARK_LOG_DIR": str(self.logs),
            "SPARK_PID_DIR": str(self.root),
            "SPARK_WORKER_DIR": str(self.work),
            "SPARK_LOCAL_DIRS": str(self.scratch),
            "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
            "SPARK_NO_DAEMONIZE": "1",
        })
        env.update(extra)
        return env

    def clean(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


#: INFO to the console (the process's log file): the readiness lines are INFO.
_LOG4J = """\
rootLogger.level = info
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = warn
"""


def _spark_class(*args: str) -> list[str]:
    return [str(SPARK_HOME / "bin" / "spark-class"), *args]


# --- a standalone cluster --------------------------------------------------------------------


class StandaloneCluster:
    """A standalone master and one worker on loopback (``url``: ``spark://127.0.0.1:P``)."""

    def __init__(self, cores: int = 2, memory: str = "2g", root: Path | None = None) -> None:
        self.cores, self.memory = cores, memory
        self.dirs = SparkDirs("standalone", root)
        self.port = 0
        self.master: SparkProcess | None = None
        self.worker: SparkProcess | None = None
        self.startup_s: float | None = None

    @property
    def url(self) -> str:
        return f"spark://{LOOPBACK}:{self.port}"

    def start(self, timeout_s: float = START_TIMEOUT_S) -> StandaloneCluster:
        started = time.monotonic()
        deadline = started + timeout_s
        self.port = free_port()
        self.master = SparkProcess("standalone master", _spark_class(
            "org.apache.spark.deploy.master.Master", "--host", LOOPBACK,
            "--port", str(self.port), "--webui-port", "0"), self.dirs.env(
            SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false"),
            self.dirs.logs / "master.log").start()
        try:
            self.master.wait_for(r"I have been elected leader", deadline)
            self.worker = SparkProcess("standalone worker", _spark_class(
                "org.apache.spark.deploy.worker.Worker", self.url, "--host", LOOPBACK,
                "--port", "0", "--webui-port", "0", "--cores", str(self.cores),
                "--memory", self.memory, "--work-dir", str(self.dirs.work)),
                self.dirs.env(), self.dirs.logs / "worker.log").start()
            self.worker.wait_for(r"Successfully registered with master", deadline)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - started
        return self

    def stop(self) -> None:
        for process in (self.worker, self.master):
            if process is not None:
                process.stop()
        self.dirs.clean()


# --- a Spark Connect server ------------------------------------------------------------------


class ConnectServer:
    """A Spark Connect server on ``127.0.0.1:port`` requiring ``token``; its driver runs
    on ``master`` (``local[2]``, or a standalone cluster's URL)."""

    SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"

    def __init__(self, master: str = "local[2]", root: Path | None = None,
                 conf: dict[str, str] | None = None) -> None:
        self.master = master
        self.dirs = SparkDirs("connect", root)
        self.token = secrets.token_urlsafe(24)
        self.port = 0
        self.conf = dict(conf or {})
        self.process: SparkProcess | None = None
        self.startup_s: float | None = None

    @property
    def url(self) -> str:
        """What the Python client connects with (``localhost``: no TLS for the token)."""
        return f"sc://localhost:{self.port}/;token={self.token}"

    def start(self, timeout_s: float = START_TIMEOUT_S) -> ConnectServer:
        started = time.monotonic()
        self.port = free_port()
        conf = {
            "spark.connect.grpc.binding.address": LOOPBACK,
            "spark.connect.grpc.binding.port": str(self.port),
            "spark.connect.grpc.port.maxRetries": "0",
            "spark.driver.host": LOOPBACK,
            "spark.driver.bindAddress": LOOPBACK,
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.executor.memory": EXECUTOR_MEMORY,
            "spark.sql.shuffle.partitions": "4",
            **self.conf,
        }
        argv = [str(SPARK_HOME / "bin" / "spark-submit"), "--class", self.SERVER_CLASS,
                "--name", "Spark Connect server (tests)", "--master", self.master,
                "--driver-memory", DRIVER_MEMORY]
        for key, value in conf.items():
            argv += ["--conf", f"{key}={value}"]
        argv.append("spark-internal")
        env = self.dirs.env(SPARK_CONNECT_AUTHENTICATE_TOKEN=self.token)
        self.process = SparkProcess("Spark Connect server", argv, env,
                                    self.dirs.logs / "connect.log").start()
        try:
            self.process.wait_for(r"Spark Connect server started", started + timeout_s)
            _wait_listening(self.port, started + timeout_s, self.process)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - started
        return self

    def session(self) -> Any:
        """A Connect client session of this server (not the process's default builder,
        which would mark the whole process as Connect: see ``pyspark.sql.utils.is_remote``)."""
        from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

        return RemoteSparkSession.builder.remote(self.url).create()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()
        self.dirs.clean()


def _wait_listening(port: int, deadline: float, process: SparkProcess) -> None:
    while True:
        with socket.socket() as s:
            s.settimeout(1.0)
            if s.connect_ex((LOOPBACK, port)) == 0:
                return
        if not process.running:
            raise SparkStartError(f"{process.name} exited:\n{process.tail()}")
        if time.monotonic() > deadline:
            raise SparkStartError(f"{process.name} is not listening on {port}:\n"
                                  f"{process.tail()}")
        time.sleep(0.1)


# --- a classic local session -----------------------------------------------------------------


def local_session(cores: int = 2, conf: dict[str, str] | None = None) -> Any:
    """The process's classic SparkSession on ``local[cores]``: no UI nor progress bar,
    driver on loopback, its scratch space in a temporary directory of its own (removed at
    exit).  Stop it with ``session.stop()``; its JVM (the py4j gateway) ends with the
    process."""
    from pyspark.sql import SparkSession

    dirs = SparkDirs("local")
    atexit.register(dirs.clean)
    builder = (SparkSession.builder.master(f"local[{cores}]").appName("jupyter-kernel-state tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.host", LOOPBACK)
               .config("spark.driver.bindAddress", LOOPBACK)
               .config("spark.local.dir", str(dirs.scratch))
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.driver.memory", DRIVER_MEMORY))
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    saved = os.environ.get("SPARK_LOCAL_IP")
    os.environ["SPARK_LOCAL_IP"] = LOOPBACK  # the gateway JVM starts now, with this
    try:
        return builder.getOrCreate()
    finally:
        if saved is None:
            os.environ.pop("SPARK_LOCAL_IP", None)
        else:
            os.environ["SPARK_LOCAL_IP"] = saved


# --- a server that goes away -------------------------------------------------------------------


class Relay:
    """A TCP relay on loopback in front of ``target_port`` (threads): ``close()`` makes the
    server behind it go away for its clients, while it keeps running for others."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server((LOOPBACK, 0))
        self.port = int(self.listener.getsockname()[1])
        self.sockets: list[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, name="spark relay", daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                down, _ = self.listener.accept()
                up = socket.create_connection((LOOPBACK, self.target_port))
            except OSError:
                return
            self.sockets += [down, up]
            for a, b in ((down, up), (up, down)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()

    def close(self) -> None:
        self.closed = True
        for s in [self.listener, *self.sockets]:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
