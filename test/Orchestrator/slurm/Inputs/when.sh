#!/bin/sh
# when.sh FILE ACTION CMD [ARG...]
# Runs CMD in the background, waits until FILE exists (60 s at most), runs
# the shell command ACTION ($F is FILE), waits for CMD and prints
# "exit status N".
file=$1; action=$2; shift 2
"$@" &
pid=$!
i=0
until [ -e "$file" ]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "when: '$*' ended before $file appeared" >&2
    exit 1
  fi
  i=$((i + 1))
  if [ "$i" -gt 600 ]; then
    echo "when: $file never appeared" >&2
    kill -TERM "$pid"
    exit 1
  fi
  sleep 0.1
done
F=$file sh -c "$action"
wait "$pid"
echo "exit status $?"
