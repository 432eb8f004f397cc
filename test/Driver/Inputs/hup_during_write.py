"""hup_during_write.py OUTDIR -- COMMAND...

Runs COMMAND as under nohup (SIGHUP ignored), watches /proc/<pid>/fd for a
file it has open in OUTDIR (the output being written: an unnamed O_TMPFILE
or a named temporary), sends it SIGHUP once then, and waits. Prints whether
the signal came during the write, the exit status, what OUTDIR holds and
the output's last line, for FileCheck. Exit 1 when no write was seen (the
test would then check nothing).
"""
import os
import signal
import subprocess
import sys
import time

outdir = os.path.realpath(sys.argv[1])
cmd = sys.argv[sys.argv.index("--") + 1:]
proc = subprocess.Popen(
    cmd, stderr=subprocess.PIPE,
    preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
sent = False
while proc.poll() is None and not sent:
    try:
        for fd in os.listdir(f"/proc/{proc.pid}/fd"):
            try:
                target = os.readlink(f"/proc/{proc.pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith(outdir + "/"):
                os.kill(proc.pid, signal.SIGHUP)
                sent = True
                break
    except OSError:
        pass
    time.sleep(0.0005)
err = proc.communicate()[1].decode()
print("signalled during the write:", "yes" if sent else "no")
print("exit", proc.returncode)
sys.stdout.write(err)
names = sorted(os.listdir(outdir))
print("files:", " ".join(names))
for name in names:
    with open(os.path.join(outdir, name), "rb") as fh:
        lines = fh.read().rstrip(b"\n").split(b"\n")
    print(f"{name} last line: {lines[-1].decode(errors='replace')}")
sys.exit(0 if sent else 1)
