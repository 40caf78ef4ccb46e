#!/usr/bin/env bash
# A private PostgreSQL server for tests (Debian's postgresql): its own data directory and a
# unix socket in a fresh directory under /tmp, no TCP port, stopped and deleted after.
#
#   postgres_server.sh start   prints two lines: the server's directory and the store URI
#                              (postgresql://sift@/postgres?host=DIR); exits 77 with a
#                              message on stderr when no server binary is installed
#   postgres_server.sh stop DIR
#
# PostgreSQL refuses to run as root, so as root the server runs as the unprivileged user
# `nobody` (setpriv), in a directory that user owns.
set -euo pipefail

server_bindir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

as_server_user() {  # runs "$@" as the server's user, from its directory
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"
  else
    "$@"
  fi
}

start() {
  local bindir dir
  if ! bindir=$(server_bindir); then
    echo "postgres_server: no PostgreSQL server binary (initdb, pg_ctl); apt-get install postgresql" >&2
    exit 77
  fi
  dir=$(mktemp -d /tmp/sift-pg.XXXXXX)
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown nobody "$dir"
  cd "$dir"
  if ! as_server_user "$bindir/initdb" -D "$dir/data" -U sift --auth=trust --encoding=UTF8 --locale=C --no-sync \
      >"$dir/initdb.log" 2>&1; then
    echo "postgres_server: initdb failed: $(tail -n 3 "$dir/initdb.log")" >&2
    rm -rf "$dir"
    exit 1
  fi
  cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
  if ! as_server_user "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null 2>&1; then
    echo "postgres_server: the server did not start: $(tail -n 3 "$dir/server.log" 2>/dev/null)" >&2
    rm -rf "$dir"
    exit 1
  fi
  echo "$dir"
  echo "postgresql://sift@/postgres?host=$dir"
}

stop() {
  local dir=$1 bindir
  [ -d "$dir/data" ] || return 0
  bindir=$(server_bindir)
  (cd "$dir" && as_server_user "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1) || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:?usage: postgres_server.sh stop DIR}" ;;
  *) echo "usage: postgres_server.sh start | stop DIR" >&2; exit 2 ;;
esac
