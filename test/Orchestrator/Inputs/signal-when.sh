#!/bin/sh
# signal-when.sh SIG FILE PATTERN CMD [ARG...]
# Runs CMD in the background, waits until FILE contains PATTERN (e.g. the
# measured tree published a pid), sends SIG to CMD, waits for it and prints
# "exit status N". Fails if FILE never matches (60 s) or CMD ended before.
sig=$1; file=$2; pattern=$3; shift 3
"$@" &
pid=$!
i=0
until grep -q -- "$pattern" "$file" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "signal-when: '$*' ended before $file matched '$pattern'" >&2
    exit 1
  fi
  i=$((i + 1))
  if [ "$i" -gt 6000 ]; then
    echo "signal-when: $file never matched '$pattern'" >&2
    kill -KILL "$pid"
    exit 1
  fi
  sleep 0.01
done
kill -"$sig" "$pid"
wait "$pid"
echo "exit status $?"
