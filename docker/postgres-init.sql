-- The pipeline Postgres also holds Airflow's metadata, in its own database.
CREATE DATABASE airflow OWNER jobharbor;
