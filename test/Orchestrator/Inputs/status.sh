#!/bin/sh
# status.sh CMD [ARG...]: runs CMD, then prints "exit status N" and exits 0,
# so a test can check an exact exit status (lit's `not` takes any non-zero).
"$@"
echo "exit status $?"
