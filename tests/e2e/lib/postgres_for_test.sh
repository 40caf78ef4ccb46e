# Sourced by an end-to-end script that needs PostgreSQL: `start_postgres NAME` starts a private
# server (postgres_server.sh) and sets URI to it; at exit the server is stopped and $WORK
# removed (this sets the script's EXIT trap). Where no server binary is installed the script
# exits 77 (skipped), saying so under NAME. Needs SRC and WORK.
POSTGRES_DIR=""

stop_postgres_and_clean() {
  [ -n "$POSTGRES_DIR" ] && bash "$SRC/tests/e2e/lib/postgres_server.sh" stop "$POSTGRES_DIR"
  rm -rf "$WORK"
}

start_postgres() {
  local name=$1 server rc
  trap stop_postgres_and_clean EXIT
  server=$(bash "$SRC/tests/e2e/lib/postgres_server.sh" start) || {
    rc=$?
    [ "$rc" -eq 77 ] && echo "$name: SKIPPED: no PostgreSQL server binary (apt-get install postgresql)"
    exit "$rc"
  }
  POSTGRES_DIR=$(echo "$server" | sed -n 1p)
  URI=$(echo "$server" | sed -n 2p)
}
