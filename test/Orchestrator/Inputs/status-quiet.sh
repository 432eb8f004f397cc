#!/bin/sh
# status-quiet.sh CMD [ARG...]: runs CMD with its stdout sent to stderr, then
# prints "exit status N" on stdout (lit's `not` only tells zero from non-zero).
"$@" >&2
echo "exit status $?"
