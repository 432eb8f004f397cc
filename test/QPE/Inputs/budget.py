"""Runs a command and checks its CPU time and peak RSS against budgets.

usage: budget.py CPU_S RSS_MB -- COMMAND...

CPU time (user + system of the command and its children) is used instead of
wall time: it does not grow when other jobs share the machine. Prints
"cpu ok" and "rss ok" (or what was exceeded) and exits with the command's
status, or 1 when a budget was exceeded.
"""
import resource
import subprocess
import sys

cpu_budget, rss_budget = float(sys.argv[1]), float(sys.argv[2])
cmd = sys.argv[sys.argv.index("--") + 1:]
rc = subprocess.call(cmd)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
rss_mb = ru.ru_maxrss / 1024.0  # KiB on Linux
ok = True
if cpu <= cpu_budget:
    print("cpu ok")
else:
    print("cpu %.1f s exceeds %.1f s" % (cpu, cpu_budget))
    ok = False
if rss_mb <= rss_budget:
    print("rss ok")
else:
    print("rss %.0f MB exceeds %.0f MB" % (rss_mb, rss_budget))
    ok = False
sys.stderr.write("budget.py: cpu %.2f s, peak rss %.0f MB\n" % (cpu, rss_mb))
sys.exit(rc if rc != 0 else (0 if ok else 1))
