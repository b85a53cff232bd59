"""Who may use `make up`'s Airflow UI and REST API, and how a script logs in.

Airflow's SimpleAuthManager with named users (USERS): `operator` (Admin: everything,
connections and pools too) and `analyst` (User: sees everything, triggers DAGs and
answers approval screens, so a decision is recorded with the analyst's name). Their
passwords live in one 0600 JSON file in the data dir (passwords_file), which Airflow
reads (AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE). A password comes from
JOBHARBOR_AIRFLOW_PASSWORD (operator) or JOBHARBOR_AIRFLOW_ANALYST_PASSWORD (analyst)
when set, else it is generated once and kept. The file is written before Airflow
starts with every user in it: Airflow then generates none itself, so it never prints
one to its logs. Nothing here prints or logs a password.

Scripts and tasks call the REST API with a JWT from `POST /auth/token` (token), never
with the credential-free `GET /auth/token`, which Airflow answers only when every user
is an admin.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import httpx

OPERATOR = "operator"
ANALYST = "analyst"
# name -> SimpleAuthManager role (viewer < user < op < admin).
USERS = {OPERATOR: "admin", ANALYST: "user"}
PASSWORD_BYTES = 18
TIMEOUT_S = 10.0


class LoginFailed(RuntimeError):
    pass


def passwords_file(data_dir: Path) -> Path:
    return data_dir / "airflow" / "passwords.json"


def users_setting() -> str:
    """AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS: `name:role` pairs."""
    return ",".join(f"{name}:{role}" for name, role in USERS.items())


def ensure_passwords(path: Path, given: dict[str, str | None]) -> dict[str, str]:
    """Every user's password in `path` (0600): the given one where set, else the one
    already kept, else a new one. Returns them (for the caller to keep to itself)."""
    kept = read_passwords(path) if path.exists() else {}
    passwords = {
        name: given.get(name) or kept.get(name) or secrets.token_urlsafe(PASSWORD_BYTES)
        for name in USERS
    }
    if passwords != kept or (path.stat().st_mode & 0o777) != 0o600:
        _write_private(path, json.dumps(passwords) + "\n")
    return passwords


def _write_private(path: Path, text: str) -> None:
    """Replace `path` with `text`, readable by this user only from the first byte."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.replace(temporary, path)


def read_passwords(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise LoginFailed(f"{path} is not a JSON object of user -> password")
    return {str(k): str(v) for k, v in data.items()}


def token(client: httpx.Client, username: str, password: str) -> str:
    """A JWT for `username` from the API server `client` points at."""
    answer = client.post("/auth/token", json={"username": username, "password": password})
    if answer.status_code != 201:
        raise LoginFailed(f"POST /auth/token as {username}: {answer.status_code}")
    return str(answer.json()["access_token"])


def token_from_file(client: httpx.Client, path: Path, username: str = OPERATOR) -> str:
    passwords = read_passwords(path)
    if username not in passwords:
        raise LoginFailed(f"no password for {username} in {path}")
    return token(client, username, passwords[username])
