#!/bin/bash
# Runs once, when the postgres container initialises an empty data directory (the official
# image runs /docker-entrypoint-initdb.d/* as its superuser). It makes the role the gateways
# connect as: the owner of the `gateway` database and nothing more. NOSUPERUSER matters: a
# superuser can run programs in the database container (COPY ... TO PROGRAM), so whoever took
# over a gateway would own the database host too.
#
# The role's password is the postgres_password secret (the one the gateways read); the
# superuser has a password of its own (postgres_admin_password) that no gateway sees.
set -euo pipefail

password="$(cat "${APP_DB_PASSWORD_FILE:?APP_DB_PASSWORD_FILE names the gateway role password file}")"
if [ -z "$password" ]; then
  echo "10-gateway-role: the gateway role's password file is empty" >&2
  exit 1
fi

psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" --set=password="$password" <<'SQL'
CREATE ROLE gateway LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'password';
CREATE DATABASE gateway OWNER gateway;
REVOKE ALL ON DATABASE gateway FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE gateway TO gateway;
SQL
