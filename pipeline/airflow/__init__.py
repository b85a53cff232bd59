"""Airflow glue: the connection environment and the task entry points the DAGs call."""
