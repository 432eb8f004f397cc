"""determinism.py PROGRAM.mlir WORKDIR N [q2-opt flags...]: compiles the
program N times (stages written with --ir-dir, object with -o), half of the
runs single-threaded (--profile-stages), and reports the first file that
differs between runs."""
import filecmp
import os
import subprocess
import sys

prog, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
flags = sys.argv[4:]
runs = []
for i in range(n):
    d = os.path.join(work, "run%d" % i)
    os.makedirs(d, exist_ok=True)
    extra = ["--profile-stages"] if i % 2 else []
    subprocess.check_call(["q2-opt", "--qpe-pipeline", prog, "--ir-dir",
                           os.path.join(d, "ir"), "-o",
                           os.path.join(d, "out.o")] + extra + flags,
                          stdout=subprocess.DEVNULL)
    runs.append(d)
# Every file under ir/ (with --keep-intermediate=pass, one per pass in a
# directory per stage). one-shot-bufferize's own output is left out: the
# order and names of the constant globals it creates come from a
# pointer-keyed map upstream; q2-order-constant-globals right after it fixes
# them for every later pass.
names = ["out.o"]
for root, _, files in sorted(os.walk(os.path.join(runs[0], "ir"))):
    for f in sorted(files):
        if not f.endswith("_one-shot-bufferize.mlir"):
            names.append(os.path.relpath(os.path.join(root, f), runs[0]))
bad = 0
for name in names:
    for d in runs[1:]:
        if not filecmp.cmp(os.path.join(runs[0], name), os.path.join(d, name),
                           shallow=False):
            print("DIFFERS: %s (run0 vs %s)" % (name, os.path.basename(d)))
            bad += 1
            break
print("%d runs, %d files: %s" % (n, len(names),
                                 "identical" if not bad else "%d differ" % bad))
