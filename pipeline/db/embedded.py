"""The embedded default: a private PostgreSQL cluster under the data directory.

Started on first use and reused afterwards (by `make demo`, `make up`, the CLI),
listening only on 127.0.0.1. Binaries come from the `pgserver` wheel when it is
installed, otherwise from a system PostgreSQL. PostgreSQL refuses to run as
root, so under root the cluster runs as an unprivileged system user.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
from psycopg import sql

from pipeline.errors import FatalError

SUPERUSER = "postgres"
DATABASES = ("jobharbor", "jobharbor_serving", "airflow")
# Databases only the cluster's superuser uses (maintenance, the template new databases are
# made from, Airflow's metadata). PostgreSQL grants every role CONNECT and TEMPORARY on
# every database through PUBLIC, so without a revoke the web role could log in to these
# and create temporary tables: taken from PUBLIC (the superuser needs no grant).
SUPERUSER_ONLY = ("postgres", "template1", "airflow")
_RUN_AS = "jobharbor-pg"


@dataclass(frozen=True)
class EmbeddedCluster:
    root: Path
    port: int
    host: str = "127.0.0.1"
    password: str | None = None  # None: a throwaway test cluster that trusts loopback

    def url(self, database: str) -> str:
        secret = f":{quote(self.password, safe='')}" if self.password else ""
        return f"postgresql://{SUPERUSER}{secret}@{self.host}:{self.port}/{database}"


def find_bin_dir() -> Path:
    with contextlib.suppress(ImportError), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pgserver warns about XDG_RUNTIME_DIR on import
        from pgserver._commands import POSTGRES_BIN_PATH

        if (POSTGRES_BIN_PATH / "pg_ctl").exists():
            return Path(POSTGRES_BIN_PATH)
    system = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: p.parts[-3])
    if system:
        return system[-1].parent
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    raise FatalError(
        "no PostgreSQL binaries: install the project (it brings the pgserver wheel) "
        "or a system PostgreSQL, or set JOBHARBOR_DATABASE_URL to an existing server"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_as_user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(_RUN_AS)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", _RUN_AS],
            check=True,
            capture_output=True,
        )
        return pwd.getpwnam(_RUN_AS)


def _open_path_for(user: pwd.struct_passwd, path: Path) -> None:
    """Let the unprivileged user reach `path` (traverse every parent) and own it."""
    for parent in path.parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(mode | stat.S_IXOTH)
    for entry in [path, *path.rglob("*")]:
        os.chown(entry, user.pw_uid, user.pw_gid, follow_symlinks=False)


def _make_readable(bin_dir: Path) -> None:
    install = bin_dir.parent
    for entry in [install, *install.rglob("*")]:
        mode = entry.stat().st_mode
        extra = stat.S_IROTH | (stat.S_IXOTH if entry.is_dir() or mode & stat.S_IXUSR else 0)
        if mode & extra != extra:
            entry.chmod(mode | extra)
    for parent in install.parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(mode | stat.S_IXOTH)


def _pg(bin_dir: Path, user: pwd.struct_passwd | None, *args: str, timeout: float = 60) -> str:
    # None for each is subprocess's own default: run as the current user.
    result = subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd="/",
        user=None if user is None else user.pw_uid,
        group=None if user is None else user.pw_gid,
        extra_groups=None if user is None else [],
    )
    if result.returncode != 0:
        raise FatalError(
            f"{args[0]} failed (exit {result.returncode}): {result.stderr.strip() or result.stdout.strip()}"
        )
    return result.stdout


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f".{root.name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _is_running(cluster: EmbeddedCluster) -> bool:
    try:
        with psycopg.connect(cluster.url("postgres"), connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False


def ensure_cluster(
    root: Path,
    *,
    port: int | None = None,
    databases: tuple[str, ...] = DATABASES,
    durable: bool = True,
    password_auth: bool = True,
) -> EmbeddedCluster:
    """Initialize (once), start (if stopped) and return the cluster under `root`.

    The superuser logs in over TCP with a generated password kept in `root/password`
    (0600): other local users cannot connect as postgres. `password_auth=False` (and
    `durable=False`, no fsync) are for throwaway test clusters only.
    """
    root = root.resolve()
    pgdata = root / "data"
    port_file = root / "port"
    with _locked(root):
        bin_dir = find_bin_dir()
        user = _run_as_user()
        if user is not None:
            _make_readable(bin_dir)
        if not (pgdata / "PG_VERSION").exists():
            pgdata.mkdir(parents=True, exist_ok=True)
            if user is not None:
                _open_path_for(user, root)
            _pg(
                bin_dir,
                user,
                "initdb",
                "-D",
                str(pgdata),
                "-U",
                SUPERUSER,
                "--auth=trust",  # pg_hba is tightened below, once the password is set
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            )
        if port is None:
            port = int(port_file.read_text()) if port_file.exists() else _free_port()
        port_file.write_text(str(port))
        password = _password(root) if password_auth else None
        cluster = EmbeddedCluster(root=root, port=port, password=password)
        if not _is_running(cluster):
            _start(bin_dir, user, pgdata, root, port, durable)
        if password is not None:
            _require_password(cluster, pgdata)
        _wait_ready(cluster)
        _ensure_databases(cluster, databases)
    return cluster


def _password(root: Path) -> str:
    """The superuser's password: generated once, readable by its owner only."""
    path = root / "password"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(24))
    return path.read_text().strip()


_HBA = """# Written by jobharbor: password (SCRAM) logins over loopback TCP only.
local   all   all                  scram-sha-256
host    all   all   127.0.0.1/32   scram-sha-256
host    all   all   ::1/128        scram-sha-256
"""


def _require_password(cluster: EmbeddedCluster, pgdata: Path) -> None:
    """Set the password and make every login need one (also for clusters created by
    versions that trusted loopback). Idempotent."""
    hba = pgdata / "pg_hba.conf"
    if hba.read_text() == _HBA:
        return
    trusting = EmbeddedCluster(cluster.root, cluster.port, cluster.host, password=None)
    _wait_ready(trusting)
    with psycopg.connect(trusting.url("postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                sql.Identifier(SUPERUSER), sql.Literal(cluster.password)
            )
        )
        hba.write_text(_HBA)
        conn.execute("SELECT pg_reload_conf()")


def _start(
    bin_dir: Path,
    user: pwd.struct_passwd | None,
    pgdata: Path,
    root: Path,
    port: int,
    durable: bool,
) -> None:
    log = root / "postgres.log"
    if user is not None:
        log.touch()
        os.chown(log, user.pw_uid, user.pw_gid)
    options = [
        "-c listen_addresses=127.0.0.1",
        f"-c port={port}",
        "-c unix_socket_directories=''",
        "-c max_connections=200",
    ]
    if not durable:
        options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
    _pg(
        bin_dir,
        user,
        "pg_ctl",
        "-D",
        str(pgdata),
        "-l",
        str(log),
        "-w",
        "-t",
        "60",
        "-o",
        " ".join(options),
        "start",
        timeout=90,
    )


def _wait_ready(cluster: EmbeddedCluster, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not _is_running(cluster):
        if time.monotonic() > deadline:
            raise FatalError(
                f"embedded PostgreSQL did not accept connections; see {cluster.root / 'postgres.log'}"
            )
        time.sleep(0.2)


def _ensure_databases(cluster: EmbeddedCluster, databases: tuple[str, ...]) -> None:
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as conn:
        existing = {row[0] for row in conn.execute("SELECT datname FROM pg_database")}
        for name in databases:
            if name not in existing:
                conn.execute(f'CREATE DATABASE "{name}"')
        for name in SUPERUSER_ONLY:
            if name in existing or name in databases:
                conn.execute(
                    sql.SQL("REVOKE CONNECT, TEMPORARY ON DATABASE {} FROM PUBLIC").format(
                        sql.Identifier(name)
                    )
                )


def stop_cluster(root: Path) -> bool:
    """Stop the cluster if it runs. Returns whether it was running."""
    root = root.resolve()
    pgdata = root / "data"
    if not (pgdata / "postmaster.pid").exists():
        return False
    bin_dir = find_bin_dir()
    _pg(
        bin_dir, _run_as_user(), "pg_ctl", "-D", str(pgdata), "-m", "fast", "-w", "stop", timeout=60
    )
    return True
