"""mutants.py OBJ DIR N: N copies of OBJ, copy i with one random byte
(seed i) changed outside its .q2.digest section."""
import os
import subprocess
import sys

obj, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
for i in range(n):
    subprocess.check_call([sys.executable, os.path.join(here, "reseal.py"),
                           "--mutate", "1", str(i), obj,
                           os.path.join(out, "%d.o" % i)])
