#!/usr/bin/env bash
# The map task as a pipe (Spark's RDD.pipe, or any engine that streams lines through a command):
# each input line is `K<TAB>RUN<TAB>RUN...`; runs `$EVALBOARD export --lake $LAKE --shard-id K
# --baseline $BASELINE RUN...` and prints `K<TAB>exit code<TAB>seconds<TAB>CPU seconds` (its stderr goes
# to the task's log). Exits non-zero after the first failed shard, so the engine fails the task.
set -uo pipefail
: "${EVALBOARD:?}" "${LAKE:?}" "${BASELINE:?}"
while IFS=$'\t' read -r -a f; do
  [ "${#f[@]}" -ge 2 ] || continue
  TIMEFORMAT='%R %U %S'
  t=$( { time "$EVALBOARD" export --lake "$LAKE" --shard-id "${f[0]}" --baseline "$BASELINE" "${f[@]:1}" \
         >/dev/null 2>&3; } 3>&2 2>&1 )
  rc=$?
  read -r wall user sys <<< "$t"
  printf '%s\t%s\t%s\t%s\n' "${f[0]}" "$rc" "$wall" "$(echo "$user + $sys" | bc)"
  [ "$rc" -eq 0 ] || exit "$rc"
done
