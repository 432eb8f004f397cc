#!/bin/sh
# when.sh FILE PATTERN ACTION CMD [ARG...]
# Runs CMD in the background, waits until FILE contains PATTERN (e.g. a
# measured tree published a pid), runs the shell command ACTION with $P the
# pid of CMD and $F the file, waits for CMD and prints "exit status N".
# Fails if FILE never matches (60 s) or CMD ended before.
file=$1; pattern=$2; action=$3; shift 3
"$@" &
pid=$!
i=0
until grep -q -- "$pattern" "$file" 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "when: '$*' ended before $file matched '$pattern'" >&2
    exit 1
  fi
  i=$((i + 1))
  if [ "$i" -gt 6000 ]; then
    echo "when: $file never matched '$pattern'" >&2
    kill -KILL "$pid"
    exit 1
  fi
  sleep 0.01
done
P=$pid F=$file sh -c "$action"
wait "$pid"
echo "exit status $?"
