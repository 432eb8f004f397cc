#!/usr/bin/env bash
# A throw-away single-node Slurm on 127.0.0.1 for the sweep tests.
#
#   cluster.sh start DIR   installs Debian's slurm-wlm and munge when they are
#                          missing (as root, with apt-get), writes
#                          DIR/slurm.conf, starts munged, slurmctld and slurmd
#                          (state, spool, logs, pids, sockets in DIR, ports
#                          picked free, bound to 127.0.0.1), waits until the
#                          node is idle, writes DIR/env (SLURM_CONF=...). When
#                          Slurm cannot start here (not root, packages missing
#                          and not installable, a daemon fails), it writes
#                          DIR/unavailable with the reason and exits 0: the
#                          tests then skip, saying why.
#   cluster.sh stop DIR    stops what `start` started (by the pids in DIR).
#
# No cgroups: proctrack/linuxproc, task/none; memory limits are enforced by
# jobacct_gather/linux with OverMemoryKill (polled every second). No
# slurmdbd: accounting_storage/none (sacct is then unavailable; the sweep
# falls back to `scontrol show job` and the jobcomp/filetxt log).
set -uo pipefail

cmd=${1:-}; dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2; exit 2
fi

stop() {
  local d=$1 pidfile pid
  for pidfile in "$d/slurmd.pid" "$d/slurmctld.pid" "$d/munge/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    # Only a daemon of this directory: its command line names DIR.
    if [ -n "$pid" ] && grep -qF "$d" "/proc/$pid/cmdline" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$pidfile"
  done
  # Job processes slurmstepd left behind (tasks of a killed slurmd): they
  # have this cluster's SLURM_CONF and a SLURM_JOB_ID in their environment.
  pkill_dir() {
    local f p
    for f in $(grep -lzxF "SLURM_CONF=$d/slurm.conf" /proc/[0-9]*/environ 2>/dev/null); do
      p=${f#/proc/}; p=${p%/environ}
      [ "$p" = "$$" ] && continue
      grep -qz '^SLURM_JOB_ID=' "$f" 2>/dev/null && kill -KILL "$p" 2>/dev/null
    done
  }
  pkill_dir
  return 0
}

unavailable() {
  echo "$*" > "$dir/unavailable"
  echo "cluster.sh: Slurm unavailable: $*" >&2
  stop "$dir"
  exit 0
}

if [ "$cmd" = stop ]; then
  [ -d "$dir" ] && stop "$(cd "$dir" && pwd)"
  exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stop "$dir"  # a previous run's leftovers
rm -rf "$dir"/{state,spool,munge,unavailable,env,*.log,slurm.conf,jobs}
mkdir -p "$dir"/{state,spool,munge,jobs}

[ "$(id -u)" -eq 0 ] || unavailable "slurmd must run as root to start jobs (running as uid $(id -u))"
PATH=$PATH:/usr/sbin
tools="munged slurmctld slurmd sbatch squeue scontrol scancel sinfo"
missing() {
  local t
  for t in $tools; do command -v "$t" >/dev/null 2>&1 || { echo "$t"; return 0; }; done
  return 1
}
# Debian's packages, as scripts/setup.sh installs them (Q2_SLURM_NO_INSTALL=1:
# never; then a missing tool skips the tests).
if t=$(missing) && [ -z "${Q2_SLURM_NO_INSTALL:-}" ] && command -v apt-get >/dev/null 2>&1; then
  echo "cluster.sh: '$t' not found: installing slurm-wlm munge" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends slurm-wlm munge; } > "$dir/apt.log" 2>&1 ||
    unavailable "'$t' not found and apt-get install slurm-wlm munge failed (see $dir/apt.log)"
fi
if t=$(missing); then
  unavailable "'$t' not found (Debian: apt-get install slurm-wlm munge; scripts/setup.sh installs them)"
fi

# munged: its own key, socket and seed here. It insists on a key readable by
# its user only and directories not writable by others.
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
sock="$dir/munge/munge.sock"
munged --force --key-file="$dir/munge/munge.key" --socket="$sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed" 2>"$dir/munge/start.err" ||
  unavailable "munged did not start: $(tr '\n' ' ' < "$dir/munge/start.err")"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
ctldPort=$(free_port); slurmdPort=$(free_port)
while [ "$slurmdPort" = "$ctldPort" ]; do slurmdPort=$(free_port); done
host=$(hostname -s)
cpus=$(nproc)
# RealMemory below the machine's (MB): half of it, at most 8 GB.
memMB=$(awk '/MemTotal/ { m = int($2 / 1024 / 2); if (m > 8000) m = 8000; print m }' /proc/meminfo)

cat > "$dir/slurm.conf" <<CONF
ClusterName=q2test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctldPort
SlurmdPort=$slurmdPort
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherParams=OverMemoryKill
JobAcctGatherFrequency=task=1
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log
MinJobAge=600
KillWait=2
ReturnToService=2
# Bind to the addresses above (127.0.0.1), not to every interface.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmdTimeout=30
SchedulerParameters=sched_interval=1
NodeName=q2node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memMB State=UNKNOWN
PartitionName=q2 Nodes=q2node Default=YES MaxTime=INFINITE State=UP
CONF
: > "$dir/plugstack.conf"
cat > "$dir/env" <<ENV
SLURM_CONF=$dir/slurm.conf
ENV
export SLURM_CONF="$dir/slurm.conf"

slurmctld -f "$SLURM_CONF" -i 2>"$dir/slurmctld.err" ||
  unavailable "slurmctld did not start: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
slurmd -f "$SLURM_CONF" -N q2node 2>"$dir/slurmd.err" ||
  unavailable "slurmd did not start: $(tail -n 3 "$dir/slurmd.log" 2>/dev/null | tr '\n' ' ')"

# Up when the node is idle (about a second).
for _ in $(seq 300); do
  state=$(sinfo -h -N -n q2node -o %T 2>/dev/null)
  [ "$state" = idle ] && { echo "cluster.sh: Slurm up in $dir (ports $ctldPort, $slurmdPort)"; exit 0; }
  sleep 0.1
done
unavailable "the node did not become idle within 30 s (state '${state:-?}'; see $dir/slurmctld.log, $dir/slurmd.log)"
