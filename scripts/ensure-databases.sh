#!/usr/bin/env bash
# Makes sure the local PostgreSQL (127.0.0.1:5432, user postgres, trust) and MariaDB
# (127.0.0.1:3306, root without password) that the integration tests use are running.
# Installs them from Debian's packages when absent (a fresh machine), starts them when down.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

wait_for() { # name, check command...
  local name=$1; shift
  for _ in $(seq 1 60); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  echo "ensure-databases: $name did not come up" >&2; return 1
}

if ! have pg_ctlcluster || [ ! -x /usr/sbin/mariadbd ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql mariadb-server >/dev/null
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
wait_for PostgreSQL pg_isready -q -h 127.0.0.1 -p 5432

if ! mariadb -uroot -h127.0.0.1 -e 'select 1' >/dev/null 2>&1; then
  as_root mkdir -p /run/mysqld && as_root chown mysql:mysql /run/mysqld 2>/dev/null || true
  as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
fi
wait_for MariaDB mariadb -uroot -h127.0.0.1 -e 'select 1'

# Trust auth for postgres over TCP on loopback is how this machine is set up; check it works.
psql -h 127.0.0.1 -U postgres -d postgres -Atc 'select 1' >/dev/null
# LOAD DATA LOCAL INFILE is the MySQL bulk path: the server must allow it.
mariadb -uroot -h127.0.0.1 -e 'SET GLOBAL local_infile = 1'
echo "ensure-databases: PostgreSQL and MariaDB are up"
