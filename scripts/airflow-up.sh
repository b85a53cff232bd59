#!/usr/bin/env bash
# make up: Airflow standalone on the embedded PostgreSQL, DAGs from dags/, sandbox sources.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(python -m pipeline.airflow.env)"
pidfile="$AIRFLOW_HOME/standalone.pid"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "Airflow is already running (pid $(cat "$pidfile")): http://localhost:${AIRFLOW__API__PORT}"
    exit 0
fi
airflow db migrate >"$AIRFLOW_HOME/migrate.log" 2>&1 || { cat "$AIRFLOW_HOME/migrate.log"; exit 1; }
# Migrations run once, here, not in every task; the pool comes from the platform too.
python -m pipeline airflow setup
setsid nohup airflow standalone >"$AIRFLOW_HOME/standalone.log" 2>&1 < /dev/null &
echo $! >"$pidfile"
echo -n "starting Airflow"
for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:${AIRFLOW__API__PORT}/api/v2/monitor/health" >/dev/null 2>&1; then
        echo
        echo "Airflow UI: http://localhost:${AIRFLOW__API__PORT}  (DAGs start paused: unpause, then trigger)"
        echo "logs: $AIRFLOW_HOME/standalone.log; stop everything with: make down"
        exit 0
    fi
    kill -0 "$(cat "$pidfile")" 2>/dev/null || { echo; tail -50 "$AIRFLOW_HOME/standalone.log"; exit 1; }
    echo -n "."
    sleep 2
done
echo; echo "Airflow did not become healthy in 4 minutes; see $AIRFLOW_HOME/standalone.log"; exit 1
