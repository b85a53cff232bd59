#!/usr/bin/env bash
# Stop the Airflow components scripts/airflow-up.sh started: each runs in its own session,
# so its whole process group (API workers, executor workers, task processes) goes with it.
set -uo pipefail
cd "$(dirname "$0")/.."
home="${JOBHARBOR_DATA_DIR:-.data}/airflow"
# run/*.pid from airflow-up.sh; standalone.pid from an `airflow standalone` of older versions.
pidfiles=("$home"/run/*.pid "$home/standalone.pid")
groups=()
for pidfile in "${pidfiles[@]}"; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    if kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null; then groups+=("$pid"); fi
    rm -f "$pidfile"
done
if [ ${#groups[@]} -eq 0 ]; then
    echo "Airflow was not running"
    exit 0
fi
for pid in "${groups[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null; done
for _ in $(seq 1 30); do
    left=0
    for pid in "${groups[@]}"; do kill -0 -- "-$pid" 2>/dev/null && left=1; done
    [ "$left" = 0 ] && break
    sleep 1
done
for pid in "${groups[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
echo "Airflow stopped"
