#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: everything lives in DIR.
#
#   url=$(scripts/pg_cluster.sh start DIR)   # prints the URL, also in DIR/url
#   RECEIPT_REVIEW_TEST_PG=$url cargo test
#   scripts/pg_cluster.sh stop DIR           # stops it and removes DIR
#
# PG_BIN picks the binaries; otherwise the newest /usr/lib/postgresql/*/bin.
# As root, the server runs as the `postgres` user (PostgreSQL refuses root).
set -euo pipefail

die() {
  echo "pg_cluster: $*" >&2
  exit 1
}

usage() {
  echo "usage: $0 start DIR | stop DIR" >&2
  exit 2
}

[ $# -eq 2 ] || usage
cmd=$1
# Absolute, so that it still names the folder after the script changes to /.
dir=$(realpath -m -- "$2")

find_bin() {
  if [ -n "${PG_BIN:-}" ]; then
    [ -x "$PG_BIN/initdb" ] || die "no initdb in PG_BIN=$PG_BIN"
    echo "$PG_BIN"
    return
  fi
  local initdb
  initdb=$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
  [ -x "$initdb" ] ||
    die "no PostgreSQL in /usr/lib/postgresql/*/bin (apt-get install postgresql, or set PG_BIN)"
  dirname "$initdb"
}

# Runs a PostgreSQL binary as the user owning the cluster.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# The kernel picks a free port; another process could take it before the
# server binds it, hence the retries in start.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local bin password port url attempt status=0
  bin=$(find_bin)
  command -v python3 >/dev/null || die "python3 is needed to pick a free port"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  # Binaries run as postgres must not inherit a working directory they
  # cannot enter (such as /root).
  cd "$dir"
  # DIR/url holds the password.
  chmod 700 "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || die "running as root needs a postgres user"
    chown postgres: "$dir"
    runuser -u postgres -- test -x "$dir" ||
      die "the postgres user cannot reach $dir (is a parent directory private?)"
  fi

  password=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  (umask 077 && echo "$password" >"$dir/pwfile")
  [ "$(id -u)" -ne 0 ] || chown postgres: "$dir/pwfile"
  # --no-sync spares flushing the new cluster's files (3 s when the disk is
  # busy): a machine crash loses this throwaway cluster anyway. The server
  # itself runs with fsync on.
  as_owner "$bin/initdb" -D "$dir/data" -U receipt_review --pwfile="$dir/pwfile" \
    --auth=scram-sha-256 -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    status=$?
  rm -f "$dir/pwfile"
  [ "$status" -eq 0 ] || die "initdb failed, see $dir/initdb.log"

  # fsync stays on because the product's tests are about durability; 300
  # connections because the tests run in parallel, each with its own pool.
  cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
fsync = on
max_connections = 300
EOF
  for attempt in 1 2 3; do
    port=$(free_port)
    if as_owner "$bin/pg_ctl" start -w -t 60 -D "$dir/data" -l "$dir/server.log" \
      -o "-p $port" >/dev/null 2>&1; then
      break
    fi
    if [ "$attempt" -eq 3 ] || ! grep -q 'could not bind' "$dir/server.log"; then
      die "the server did not start, see $dir/server.log"
    fi
  done

  url="postgres://receipt_review:$password@127.0.0.1:$port/postgres"
  # Proves that the password works over TCP, and that pg_trgm (in Debian's
  # postgresql package, elsewhere in contrib) is there for the product to
  # create.
  if ! PGPASSWORD=$password "$bin/psql" -h 127.0.0.1 -p "$port" -U receipt_review \
    -d postgres -XAtq -c "SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'" \
    >"$dir/check.log" 2>&1; then
    as_owner "$bin/pg_ctl" stop -D "$dir/data" -m fast >/dev/null 2>&1 || true
    die "cannot connect to the new server, see $dir/check.log"
  fi
  if [ "$(cat "$dir/check.log")" != 1 ]; then
    as_owner "$bin/pg_ctl" stop -D "$dir/data" -m fast >/dev/null 2>&1 || true
    die "the pg_trgm extension is not available (install PostgreSQL's contrib modules)"
  fi
  rm -f "$dir/check.log"
  echo "$url" >"$dir/url"
  echo "$url"
}

stop() {
  [ -e "$dir" ] || return 0
  # Guards the rm -rf below against a mistyped DIR: start leaves
  # initdb.log in any DIR it got as far as running initdb in.
  [ -e "$dir/initdb.log" ] || [ -z "$(ls -A "$dir")" ] ||
    die "$dir does not hold a cluster made by this script"
  local bin
  bin=$(find_bin)
  cd /
  if as_owner "$bin/pg_ctl" status -D "$dir/data" >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" stop -w -D "$dir/data" -m fast >/dev/null 2>&1 ||
      die "pg_ctl stop failed, see $dir/server.log"
  fi
  rm -rf "$dir"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
