#!/bin/sh
# signal-when.sh SIG FILE PATTERN CMD [ARG...]
# Runs CMD in the background, waits until FILE contains PATTERN (e.g. the
# measured tree published a pid), sends SIG to CMD, waits for it and prints
# "exit status N". Fails if FILE never matches (60 s) or CMD ended before.
sig=$1; file=$2; pattern=$3; shift 3
exec /bin/sh "$(dirname "$0")/when.sh" "$file" "$pattern" "kill -$sig \$P" "$@"
