"""python_sweep.py WORK H2: q2.run_sweep(executor="slurm") against the test
cluster: a waited sweep with its progress events, then wait=False and a
second call that resumes it without submitting again."""
import os
import sys

import q2

work, h2 = sys.argv[1:3]
events = []
r = q2.run_sweep(os.path.join(work, "a"), molecules=[("h2", h2, 15)],
                 grid=[(2, 1)], modes=["fixed", "dynamic"], runs=1,
                 rss_mb=1000, executor="slurm", slurm={"poll_s": 0.3},
                 on_progress=events.append)
kinds = [e.kind for e in events]
assert [p.status for p in r] == ["ok", "ok"], [p.to_dict() for p in r]
assert kinds[0] == "submitted" and kinds.count("finished") == 2, kinds
assert len(r.slurm_jobs) == 1 and r.in_flight == 0, r.slurm_jobs
assert all(p.slurm.job_id.startswith(r.slurm_jobs[0] + "_") for p in r)
print("waited:", r.ran, "run,", r.failed, "failed, job", r.slurm_jobs[0])

b = os.path.join(work, "b")
first = q2.run_sweep(b, molecules=[("h2", h2, 15)], grid="2x1",
                     modes=["fixed"], runs=1, rss_mb=1000, executor="slurm",
                     slurm={"poll_s": 0.3, "wait": False})
assert len(first) == 0 and first.in_flight == 1, (len(first), first.in_flight)
again = q2.run_sweep(b, molecules=[("h2", h2, 15)], grid="2x1",
                     modes=["fixed"], runs=1, rss_mb=1000, executor="slurm",
                     slurm={"poll_s": 0.3})
assert again.slurm_jobs == [] and [p.status for p in again] == ["ok"]
print("resumed:", again.ran + again.skipped_count, "point, nothing submitted")

try:
    q2.run_sweep(os.path.join(work, "c"), molecules=[("h2", h2, 15)],
                 slurm={"partition": "q2"})
except ValueError as e:
    print("refused:", e)
