#!/bin/sh
# Creates or upgrades Temporal's two PostgreSQL databases (the default store and SQL visibility)
# with the schemas built into temporal-sql-tool: idempotent, so safe on every start. Run by
# docker-compose.yml (admin-tools image) and by the local cluster (bench/lib/cluster.ts).
# Reads SQL_HOST, SQL_PORT, SQL_USER and SQL_PASSWORD (temporal-sql-tool's own variables).
set -eu
export SQL_PLUGIN=postgres12
for db in temporal temporal_visibility; do
  schema=temporal
  [ "$db" = temporal_visibility ] && schema=visibility
  # create-database fails only when the database exists; setup-schema -v 0.0 then only adds the
  # version table, and update-schema applies the migrations not yet applied.
  temporal-sql-tool --db "$db" create-database >/dev/null 2>&1 || true
  temporal-sql-tool --quiet --db "$db" setup-schema -v 0.0
  temporal-sql-tool --quiet --db "$db" update-schema --schema-name "postgresql/v12/$schema"
done
