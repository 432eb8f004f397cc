"""What the benchmark scripts share: where things are, building a QPE
program with q2-qpe, reading q2-qpe --info, and running a child process
that must succeed (optionally with its wall time and peak RSS from wait4).

The scripts import it with
    sys.path.insert(0, os.path.join(<benchmarks dir>, "common"))
    import benchlib
"""
import os
import re
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
HAM = os.path.join(ROOT, "examples", "hamiltonians")
LLVM_BIN = "/usr/lib/llvm-22/bin"


def _who():
    """The running script's name, for messages."""
    return os.path.splitext(os.path.basename(sys.argv[0]))[0]


def fcidump(name):
    """examples/hamiltonians/<name>.FCIDUMP."""
    return os.path.join(HAM, name + ".FCIDUMP")


def require(*paths):
    """Exits naming the first of paths that does not exist."""
    for p in paths:
        if not os.path.exists(p):
            sys.exit(f"{_who()}: {p} not found (build first)")


def tool(build, name):
    """BUILD/bin/<name>."""
    return os.path.join(build, "bin", name)


def qpe_program(q2qpe, ham, out, n_est=8, n_trotter=10, power="time",
                order=2, mode="dynamic", extra=()):
    """Writes the QPE program of the FCIDUMP `ham` to out (q2-qpe; its
    warnings are dropped) and returns out. order/power None: q2-qpe's
    default (or whatever extra sets)."""
    cmd = [q2qpe, ham, "--mode", mode, "--n-est", str(n_est),
           "--n-trotter", str(n_trotter)]
    if order is not None:
        cmd += ["--order", str(order)]
    if power is not None:
        cmd += ["--power", power]
    subprocess.run(cmd + list(extra) + ["-o", out], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def qpe_info(q2qpe, ham):
    """From `q2-qpe HAM --info`: Pauli terms, system qubits and the n_est
    q2-qpe would choose."""
    out = subprocess.run([q2qpe, ham, "--info"], check=True,
                         capture_output=True, text=True).stdout
    n_est = re.search(r"n_est (\d+)", out)
    return {"terms": int(re.search(r"Pauli terms\s+(\d+)", out).group(1)),
            "qubits": int(re.search(r"qubits\s+(\d+)", out).group(1)),
            "n_est": int(n_est.group(1)) if n_est else None}


def run_checked(cmd, env=None):
    """Runs cmd (stdout dropped, extra environment `env`); exits with its
    stderr when it fails."""
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{_who()}: command failed ({p.returncode}): "
                 f"{' '.join(cmd)}\n{p.stderr}")
    return p


def run_wait4(cmd, env=None):
    """Runs cmd (extra environment `env`); (wall seconds, its rusage from
    wait4). Exits with its stderr when it fails."""
    e = dict(os.environ, **env) if env else None
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         env=e)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if status != 0:
        sys.exit(f"{_who()}: command failed ({status}): {' '.join(cmd)}\n{err}")
    return wall, ru


def run_peak(cmd):
    """(wall seconds, peak RSS MB of the child) of one run of cmd."""
    wall, ru = run_wait4(cmd)
    return wall, ru.ru_maxrss * 1024 / 1e6  # KiB -> decimal MB (docs/report.md)


def run_cpu(cmd):
    """(wall s, CPU s = user + sys) of one run of cmd."""
    wall, ru = run_wait4(cmd)
    return wall, ru.ru_utime + ru.ru_stime


def callgrind_counts(variants, wanted, tmp):
    """Inclusive instruction counts under valgrind's callgrind (one run per
    variant; the machine's load does not change them). variants: {name:
    argv}; wanted: {name: {key: function as callgrind_annotate prints it}}.
    Returns {key: count}, or None (saying why) when valgrind is missing or a
    function is not in a profile."""
    import shutil
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        print("instructions: valgrind not installed, skipped")
        return None
    out = {}
    for name, fns in wanted.items():
        f = os.path.join(tmp, "callgrind." + name)
        subprocess.run(["valgrind", "--tool=callgrind",
                        "--callgrind-out-file=" + f] + variants[name],
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", f],
                             capture_output=True, text=True,
                             check=True).stdout
        for key, fn in fns.items():
            for line in ann.splitlines():
                if fn in line:
                    out[key] = int(line.split()[0].replace(",", ""))
                    break
            else:
                print("instructions: no %s in the %s profile, skipped"
                      % (fn.strip(), name))
                return None
    return out


def sparse_program(source, copies, out):
    """The functions of the MLIR file `source`, `copies` times under
    distinct names (a larger program of the same kernels), written to
    `out`."""
    text = open(source).read()
    head, body = text.split("func.func", 1)
    body = "func.func" + body
    with open(out, "w") as f:
        f.write(head)
        for i in range(copies):
            f.write(re.sub(r"func\.func @(\w+)",
                           lambda m: "func.func @%s_%d" % (m.group(1), i), body))
    return out
