#!/usr/bin/env bash
# Stop the Airflow standalone process group started by scripts/airflow-up.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
pidfile="${JOBHARBOR_DATA_DIR:-.data}/airflow/standalone.pid"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    pid="$(cat "$pidfile")"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    echo "Airflow stopped"
else
    echo "Airflow was not running"
fi
rm -f "$pidfile"
