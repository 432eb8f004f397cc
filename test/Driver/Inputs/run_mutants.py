"""run_mutants.py DIR N: runs `q2-opt --run 1` on DIR/0.o .. DIR/N-1.o and
counts one-line refusals (exit 1, one 'error:' line), crashes (a signal or
an abort) and runs that succeeded."""
import os
import subprocess
import sys

d, n = sys.argv[1], int(sys.argv[2])
refused = crashed = ran = 0
for i in range(n):
    p = subprocess.run(["q2-opt", "--run", "1", os.path.join(d, "%d.o" % i)],
                       capture_output=True, text=True, timeout=120)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode == 0:
        ran += 1
        print("ran: %d.o" % i)
    elif p.returncode == 1 and len(lines) == 1 and "error:" in lines[0]:
        refused += 1
    else:
        crashed += 1
        print("crashed: %d.o (exit %d): %s" % (i, p.returncode, p.stderr[-300:]))
print("%d mutants: %d refused in one line, %d crashed, %d ran"
      % (n, refused, crashed, ran))
