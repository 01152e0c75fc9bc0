#!/usr/bin/env bash
# Makes sure the local PostgreSQL and MariaDB that the integration tests use are running and
# accept the logins the tests make, on this machine and on a fresh Debian one:
#   - PostgreSQL 127.0.0.1:5432: user `postgres` (and the roles the tests create) without a
#     password over TCP from 127.0.0.1 (pg_hba `trust`);
#   - MariaDB 127.0.0.1:3306: `root@127.0.0.1` and `root@localhost` with an empty password over
#     TCP, and `local_infile` on (LOAD DATA LOCAL INFILE is the MySQL bulk path);
#   - TLS on in both servers, with a test CA and a server certificate made here with openssl in
#     $SDS_TEST_TLS_DIR (default /var/lib/sds-test-tls): ca.pem (what the tests trust) and a
#     server certificate whose only name is DNS:localhost, so `localhost` is the right host and
#     `127.0.0.1` a wrong one (docs/breakout.md, "TLS"). Clients that ask for no TLS still
#     connect in plain.
# Installs them from Debian's packages when absent, starts them when down, and sets up only what
# is missing: safe to run again, and it leaves a server that already works alone.
# Administration goes through the local sockets as the OS accounts (postgres peer auth,
# MariaDB root unix_socket auth), which a fresh Debian allows; so it runs as root or with sudo.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
say() { echo "ensure-databases: $*"; }

wait_for() { # name, check command...
  local name=$1; shift
  for _ in $(seq 1 60); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  echo "ensure-databases: $name did not come up" >&2; return 1
}

if ! have pg_ctlcluster || [ ! -x /usr/sbin/mariadbd ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql mariadb-server >/dev/null
fi

# --- PostgreSQL -------------------------------------------------------------------------------
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -1)" main start || true
fi
wait_for PostgreSQL pg_isready -q -h 127.0.0.1 -p 5432

# The first pg_hba rule that matches a TCP login from 127.0.0.1 decides. Debian's default is
# scram-sha-256 (a password); the tests log in as postgres, and as roles they create (a
# connection-limit role, for instance), without one. So a `trust` rule for 127.0.0.1 must come
# before any other host rule for that address. Added once, at the top, then the server reloads.
HBA=$(as_postgres psql -XAtqc 'SHOW hba_file')
first_loopback_rule=$(as_root awk '$1 ~ /^host/ && $4 == "127.0.0.1/32" { print $2, $3, $5; exit }' "$HBA")
if [ "$first_loopback_rule" != "all all trust" ]; then
  say "PostgreSQL: trusting TCP logins from 127.0.0.1 ($HBA)"
  as_root sed -i '1i # sds tests: logins from 127.0.0.1 need no password (scripts/ensure-databases.sh)\nhost    all             all             127.0.0.1/32            trust' "$HBA"
  as_postgres psql -XAtqc 'SELECT pg_reload_conf()' >/dev/null
fi
wait_for 'PostgreSQL login postgres@127.0.0.1' psql -w -h 127.0.0.1 -U postgres -d postgres -XAtc 'select 1'

# --- MariaDB ----------------------------------------------------------------------------------
# `ping` answers 0 whenever the server runs, whatever the login: the accounts come next.
if ! mariadb-admin --protocol=TCP -h127.0.0.1 -P3306 ping >/dev/null 2>&1; then
  as_root mkdir -p /run/mysqld && as_root chown mysql:mysql /run/mysqld 2>/dev/null || true
  as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql || true
fi
# As the OS root over the socket: Debian's root@localhost uses unix_socket auth.
maria_admin() { as_root mariadb -uroot --protocol=SOCKET "$@"; }
wait_for MariaDB maria_admin -e 'select 1'

# A TCP login from 127.0.0.1 may match root@127.0.0.1 or root@localhost (with name resolution
# on), so both take an empty password. root@localhost keeps unix_socket as an alternative, so
# `sudo mariadb` still works. Changed only when not already so.
root_localhost=$(maria_admin -N -e "SELECT concat(JSON_VALUE(Priv, '$.plugin'), '/', JSON_VALUE(Priv, '$.authentication_string')) FROM mysql.global_priv WHERE User = 'root' AND Host = 'localhost'")
if [ "$root_localhost" != "mysql_native_password/" ]; then
  say "MariaDB: root@localhost gets an empty password (unix_socket kept)"
  maria_admin -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('') OR unix_socket"
fi
root_loopback=$(maria_admin -N -e "SELECT count(*) FROM mysql.global_priv WHERE User = 'root' AND Host = '127.0.0.1'")
if [ "$root_loopback" = 0 ]; then
  say "MariaDB: creating root@127.0.0.1 with an empty password"
  maria_admin -e "CREATE USER 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION"
fi

# LOAD DATA LOCAL INFILE: on now, and after a restart where Debian's config directory exists.
if [ "$(maria_admin -N -e 'SELECT @@GLOBAL.local_infile')" != 1 ]; then
  say "MariaDB: local_infile on"
  maria_admin -e 'SET GLOBAL local_infile = 1'
fi
CNF_DIR=/etc/mysql/mariadb.conf.d
# Debian's my.cnf reads this folder; a my.cnf written by hand may not: then it is added, so the
# settings below survive a restart.
if [ -f /etc/mysql/my.cnf ] && ! grep -Eq "^[[:space:]]*!includedir[[:space:]]+$CNF_DIR/?[[:space:]]*$" /etc/mysql/my.cnf; then
  say "MariaDB: /etc/mysql/my.cnf now includes $CNF_DIR"
  as_root mkdir -p "$CNF_DIR"
  printf '\n# sds tests (scripts/ensure-databases.sh)\n!includedir %s/\n' "$CNF_DIR" | as_root tee -a /etc/mysql/my.cnf >/dev/null
fi
if [ -d "$CNF_DIR" ] && [ ! -f "$CNF_DIR/99-sds-tests.cnf" ]; then
  printf '# sds tests (scripts/ensure-databases.sh): LOAD DATA LOCAL INFILE\n[mysqld]\nlocal_infile = 1\n' | as_root tee "$CNF_DIR/99-sds-tests.cnf" >/dev/null
fi

# --- TLS ----------------------------------------------------------------------------------------
TLS_DIR=${SDS_TEST_TLS_DIR:-/var/lib/sds-test-tls}
if [ ! -s "$TLS_DIR/ca.pem" ] || [ ! -s "$TLS_DIR/server.pem" ] || [ ! -s "$TLS_DIR/server.key" ]; then
  say "TLS: making a test CA and a server certificate for localhost in $TLS_DIR"
  have openssl || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl >/dev/null
  as_root mkdir -p "$TLS_DIR"
  as_root chmod 0755 "$TLS_DIR"
  work=$(mktemp -d)
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj '/CN=sds test CA' \
    -keyout "$work/ca.key" -out "$work/ca.pem" \
    -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj '/CN=localhost' -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' >"$work/ext.cnf"
  openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 3650 \
    -extfile "$work/ext.cnf" -out "$work/server.pem" 2>/dev/null
  as_root install -m 0644 "$work/ca.pem" "$work/server.pem" "$TLS_DIR/"
  as_root install -m 0600 "$work/ca.key" "$work/server.key" "$TLS_DIR/"
  rm -rf "$work"
  # Each server reads its own copy of the key (PostgreSQL refuses a key others can read).
  as_root rm -f "$TLS_DIR/postgres.key" "$TLS_DIR/mysql.key"
fi
if [ ! -f "$TLS_DIR/postgres.key" ]; then
  as_root install -m 0600 -o postgres -g postgres "$TLS_DIR/server.key" "$TLS_DIR/postgres.key"
fi
if [ ! -f "$TLS_DIR/mysql.key" ]; then
  as_root install -m 0600 -o mysql -g mysql "$TLS_DIR/server.key" "$TLS_DIR/mysql.key"
fi

if [ "$(as_postgres psql -XAtqc 'SHOW ssl')" != on ] || [ "$(as_postgres psql -XAtqc 'SHOW ssl_cert_file')" != "$TLS_DIR/server.pem" ]; then
  say "PostgreSQL: TLS on ($TLS_DIR/server.pem)"
  as_postgres psql -XAtq -c "ALTER SYSTEM SET ssl_cert_file = '$TLS_DIR/server.pem'" -c "ALTER SYSTEM SET ssl_key_file = '$TLS_DIR/postgres.key'" \
    -c "ALTER SYSTEM SET ssl = on" -c 'SELECT pg_reload_conf()' >/dev/null
  wait_for 'PostgreSQL TLS' sh -c '[ "$(psql -w -h 127.0.0.1 -U postgres -d postgres -XAtc "show ssl")" = on ]'
fi

if [ "$(maria_admin -N -e "SELECT @@have_ssl")" != YES ]; then
  say "MariaDB: TLS on ($TLS_DIR/server.pem), restarting mariadbd"
  as_root mkdir -p "$CNF_DIR"
  printf '# sds tests (scripts/ensure-databases.sh): TLS with the test CA\n[mysqld]\nssl_ca = %s/ca.pem\nssl_cert = %s/server.pem\nssl_key = %s/mysql.key\n' \
    "$TLS_DIR" "$TLS_DIR" "$TLS_DIR" | as_root tee "$CNF_DIR/99-sds-tests-tls.cnf" >/dev/null
  as_root mariadb-admin --protocol=SOCKET -uroot shutdown
  for _ in $(seq 1 60); do pgrep -x mariadbd >/dev/null || break; sleep 1; done
  as_root mkdir -p /run/mysqld && as_root chown mysql:mysql /run/mysqld
  as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
  wait_for MariaDB maria_admin -e 'select 1'
  if [ "$(maria_admin -N -e "SELECT @@have_ssl")" != YES ]; then
    echo "ensure-databases: MariaDB did not turn TLS on (see $CNF_DIR/99-sds-tests-tls.cnf)" >&2; exit 1
  fi
fi

wait_for 'MariaDB login root@127.0.0.1' mariadb -uroot -h127.0.0.1 -P3306 --protocol=TCP -e 'select 1'
mariadb -uroot -hlocalhost -P3306 --protocol=TCP -e 'select 1' >/dev/null
say "PostgreSQL and MariaDB are up, with TLS"
