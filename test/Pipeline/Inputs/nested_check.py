"""nested_check.py Q2OPT MLIROPT INPUT: runs every q2 module pass and
pipeline nested in func.func with both hosts; each must exit 1 with an
error and without LLVM ERROR (an abort)."""
import shlex
import subprocess
import sys

NAMES = ["q2-qpe-pipeline", "q2-hlo-lowering", "q2-quantum-lowering",
         "q2-bufferization", "q2-llvm-dialect", "q2-llvm-ir",
         "q2-object-code", "convert-qpe-to-llvm", "q2-snapshot",
         "quantum-outline-chunks", "convert-quantum-to-llvm"]
hosts, path = sys.argv[1:3], sys.argv[3]
ok = 0
for host in hosts:
    for name in NAMES:
        cmd = shlex.split(host) + [
            path, "--pass-pipeline=builtin.module(func.func(%s))" % name]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode == 1 and "error" in p.stderr and \
                "LLVM ERROR" not in p.stderr:
            ok += 1
        else:
            print("FAIL %s %s: exit %d\n%s" % (host.split()[0], name,
                                               p.returncode, p.stderr[-400:]))
print("%d passes x %d hosts: %d clean errors" % (len(NAMES), len(hosts), ok))
