#!/usr/bin/env bash
# make up: Airflow's four components on the embedded PostgreSQL, DAGs from dags/, sandbox
# sources. Not `airflow standalone`: its scheduler and triggerer start task-log servers
# (8793, 8794) that bind every interface with no host setting. With the LocalExecutor on
# one machine the API server reads the task log files itself, so they are skipped, and
# the API server binds JOBHARBOR_AIRFLOW_HOST (default 127.0.0.1).
# JOBHARBOR_AIRFLOW_EXECUTOR=celery (`make up EXECUTOR=celery`): the CeleryExecutor, with
# Redis (the broker, on 127.0.0.1, started by pipeline.airflow.env) and the Celery workers
# of pipeline.airflow.workers, one per lane pair, also without task-log servers.
set -euo pipefail
cd "$(dirname "$0")/.."
celery=false
[ "${JOBHARBOR_AIRFLOW_EXECUTOR:-local}" = celery ] && celery=true
if $celery && ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq redis-server
fi
eval "$(python -m pipeline.airflow.env)"
COMPONENTS=(api-server scheduler dag-processor triggerer)
WORKERS=()
if $celery; then
    workers="$(python -m pipeline.airflow.workers commands)"
    while read -r name _; do WORKERS+=("$name"); done <<<"$workers"
    COMPONENTS+=("${WORKERS[@]}")
fi
run="$AIRFLOW_HOME/run"
mkdir -p "$run"
api="${AIRFLOW__CORE__EXECUTION_API_SERVER_URL%/execution/}"  # where this machine reaches it

alive() { [ -f "$run/$1.pid" ] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null; }

up=(); down=()
for name in "${COMPONENTS[@]}"; do
    if alive "$name"; then up+=("$name"); else down+=("$name"); fi
done
if [ ${#down[@]} -eq 0 ]; then
    pids=""; for name in "${COMPONENTS[@]}"; do pids+=" $name $(cat "$run/$name.pid")"; done
    echo "Airflow is already running (${pids# }): $api"
    exit 0
fi
if [ ${#up[@]} -gt 0 ]; then
    echo "Airflow is partly running (${up[*]} up, ${down[*]} not): run make down, then make up"
    exit 1
fi

airflow db migrate >"$AIRFLOW_HOME/migrate.log" 2>&1 || { cat "$AIRFLOW_HOME/migrate.log"; exit 1; }
# Migrations run once, here, not in every task; the pool comes from the platform too.
python -m pipeline airflow setup

# The scheduler imports the task code before it forks the executor's workers, so each
# task process starts with it loaded (pipeline/airflow/preload.py; JOBHARBOR_AIRFLOW_PRELOAD=0
# turns it off). Airflow imports airflow_local_settings from AIRFLOW_HOME/config in every
# component; only the scheduler is given the variable.
mkdir -p "$AIRFLOW_HOME/config"
cat >"$AIRFLOW_HOME/config/airflow_local_settings.py" <<'PY'
# Written by scripts/airflow-up.sh: see pipeline/airflow/preload.py.
import os

if os.environ.get("JOBHARBOR_AIRFLOW_PRELOAD") == "1":
    from pipeline.airflow.preload import preload

    preload()
__all__: list[str] = []
PY

start() {  # name, then the airflow arguments; each in its own session so make down stops it whole
    local name="$1" preload=0; shift
    [ "$name" = scheduler ] && preload="${JOBHARBOR_AIRFLOW_PRELOAD:-1}"
    JOBHARBOR_AIRFLOW_PRELOAD="$preload" setsid nohup airflow "$@" >"$AIRFLOW_HOME/$name.log" 2>&1 </dev/null &
    echo $! >"$run/$name.pid"
}
start api-server api-server --host "$AIRFLOW__API__HOST" --port "$AIRFLOW__API__PORT"
start scheduler scheduler --skip-serve-logs
start dag-processor dag-processor
start triggerer triggerer --skip-serve-logs
if $celery; then
    while read -r name args; do
        eval "start $name $args"  # printed shell-quoted (shlex.join)
    done <<<"$workers"
fi

# Ready when the API answers and reports the scheduler, DAG processor and triggerer healthy.
healthy() {
    curl -fsS "$api/api/v2/monitor/health" 2>/dev/null | python -c '
import json, sys
health = json.load(sys.stdin)
parts = ("metadatabase", "scheduler", "dag_processor", "triggerer")
sys.exit(0 if all((health.get(p) or {}).get("status") == "healthy" for p in parts) else 1)' 2>/dev/null \
        && for name in "${WORKERS[@]}"; do grep -q " ready\." "$AIRFLOW_HOME/$name.log" || return 1; done
}
echo -n "starting Airflow"
for _ in $(seq 1 120); do
    if healthy; then
        echo
        echo "Airflow UI: $api  (DAGs start paused: unpause, then trigger)"
        echo "log in as operator (Admin) or analyst (User: triggers, approves); passwords:" \
            "JOBHARBOR_AIRFLOW_PASSWORD / JOBHARBOR_AIRFLOW_ANALYST_PASSWORD when set, else" \
            "in $AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE (see docs/operations.md#logging-in)"
        echo "logs: $AIRFLOW_HOME/{api-server,scheduler,dag-processor,triggerer}.log; stop everything with: make down"
        if $celery; then
            echo "Celery workers (logs: $AIRFLOW_HOME/<worker>.log), Redis on 127.0.0.1:$JOBHARBOR_REDIS_PORT:"
            echo "$workers" | sed 's/^/  /'
        fi
        exit 0
    fi
    for name in "${COMPONENTS[@]}"; do
        if ! alive "$name"; then
            echo; echo "airflow $name exited:"; tail -50 "$AIRFLOW_HOME/$name.log"
            bash scripts/airflow-down.sh; exit 1
        fi
    done
    echo -n "."
    sleep 2
done
echo; echo "Airflow did not become healthy in 4 minutes; see $AIRFLOW_HOME/*.log"
bash scripts/airflow-down.sh; exit 1
