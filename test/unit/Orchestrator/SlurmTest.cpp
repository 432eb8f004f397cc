//===- SlurmTest.cpp - The slurm executor without a cluster ---------------===//
//
// What Slurm's tools print (captured from Slurm 22.05) read into task
// records, how a task that ended is classified, the budgets a task asks
// for, and the controller's decisions on resume with a scripted stand-in
// for the tools (which points it submits, which it waits for, what it
// records). The same paths against a running Slurm are in
// test/Orchestrator/slurm.
//
//===----------------------------------------------------------------------===//

#include "UnitTestUtil.h"
#include "q2/Orchestrator/SweepSlurm.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace q2::orch;

namespace {

TEST(SlurmParse, Durations) {
  EXPECT_EQ(parseSlurmDuration("00:00:02"), 2.0);
  EXPECT_EQ(parseSlurmDuration("1-02:03:04"), 86400 + 2 * 3600 + 3 * 60 + 4.0);
  EXPECT_EQ(parseSlurmDuration("5:07"), 5 * 60 + 7.0); // squeue %M
  EXPECT_EQ(parseSlurmDuration("1:02:03"), 3723.0);
  EXPECT_EQ(parseSlurmDuration("00:01.250"), 1.25);
  EXPECT_EQ(parseSlurmDuration("2-12"), 2 * 86400 + 12 * 3600.0);
  EXPECT_FALSE(parseSlurmDuration("UNLIMITED"));
  EXPECT_FALSE(parseSlurmDuration(""));
  EXPECT_FALSE(parseSlurmDuration("12"));
  EXPECT_FALSE(parseSlurmDuration("a:b"));
}

TEST(SlurmParse, Sizes) {
  EXPECT_DOUBLE_EQ(*parseSlurmSizeMB("315404K"), 315404 * 1024 / 1e6);
  EXPECT_DOUBLE_EQ(*parseSlurmSizeMB("100M"), 104.8576);
  EXPECT_DOUBLE_EQ(*parseSlurmSizeMB("4000Mn"), 4000 * 1.048576);
  EXPECT_DOUBLE_EQ(*parseSlurmSizeMB("2Gc"), 2 * 1073.741824);
  EXPECT_DOUBLE_EQ(*parseSlurmSizeMB("1024"), 1.048576);     // KiB
  EXPECT_DOUBLE_EQ(*parseSlurmSizeMB("1000000", true), 1.0); // bytes
  EXPECT_FALSE(parseSlurmSizeMB(""));
  EXPECT_FALSE(parseSlurmSizeMB("12X"));
  EXPECT_FALSE(parseSlurmSizeMB("M"));
}

TEST(SlurmParse, Squeue) {
  auto tasks = parseSqueue("12|0|RUNNING|0:05|q2node|None\n"
                           "12|3|PENDING|0:00||JobArrayTaskLimit\n"
                           "13|N/A|RUNNING|1:00|n1|None\n"
                           "garbage\n");
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].jobId(), "12_0");
  EXPECT_EQ(tasks[0].state, "RUNNING");
  EXPECT_EQ(tasks[0].elapsedS, 5.0);
  EXPECT_EQ(tasks[0].node, "q2node");
  EXPECT_EQ(tasks[1].jobId(), "12_3");
  EXPECT_EQ(tasks[1].reason, "JobArrayTaskLimit");
}

TEST(SlurmParse, SacctTakesTheTaskLineAndTheLargestStep) {
  // JobID|State|ExitCode|Elapsed|MaxRSS|ReqMem|NodeList
  auto t = parseSacct("41_0|COMPLETED|0:0|00:00:03||4507M|n1\n"
                      "41_0.batch|COMPLETED|0:0|00:00:03|20480K||n1\n"
                      "41_0.extern|COMPLETED|0:0|00:00:03|1024K||n1\n"
                      "41_1|FAILED|0:9|00:00:02||100M|n2\n"
                      "41_1.batch|OUT_OF_MEMORY|0:125|00:00:02|315404K||n2\n"
                      "41_2|TIMEOUT|0:0|00:11:00||100M|n1\n"
                      "41_3|NODE_FAIL|0:0|00:00:09||100M|n3\n"
                      "41_4|CANCELLED by 0|0:0|00:00:01||100M|n1\n"
                      "41_[5-9]|PENDING|0:0|00:00:00||100M|None assigned\n");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t["41_0"].state, "COMPLETED");
  EXPECT_DOUBLE_EQ(*t["41_0"].maxRssMB, 20480 * 1024 / 1e6);
  EXPECT_DOUBLE_EQ(*t["41_0"].memLimitMB, 4507 * 1.048576);
  EXPECT_EQ(t["41_0"].source, "sacct");
  EXPECT_EQ(t["41_1"].state, "OUT_OF_MEMORY"); // from its step
  EXPECT_EQ(t["41_1"].exitCode, "0:9");
  EXPECT_EQ(t["41_1"].node, "n2");
  EXPECT_EQ(t["41_2"].elapsedS, 660.0);
  EXPECT_EQ(t["41_4"].state, "CANCELLED");
  EXPECT_EQ(classifySlurmTask(t["41_0"]), SlurmOutcome::Ended);
  EXPECT_EQ(classifySlurmTask(t["41_1"]), SlurmOutcome::MemoryKill);
  EXPECT_EQ(classifySlurmTask(t["41_2"]), SlurmOutcome::TimeKill);
  EXPECT_EQ(classifySlurmTask(t["41_3"]), SlurmOutcome::NodeFailure);
  EXPECT_EQ(classifySlurmTask(t["41_4"]), SlurmOutcome::Cancelled);
}

// As `scontrol --oneliner show job 1` and jobcomp/filetxt print them.
const char *const ScontrolLines =
    "JobId=4 ArrayJobId=1 ArrayTaskId=2 JobName=q2t UserId=root(0) "
    "JobState=FAILED Reason=JobLaunchFailure Dependency=(null) "
    "ExitCode=0:9 RunTime=00:00:01 TimeLimit=00:01:00 "
    "StartTime=2026-12-06T05:24:45 EndTime=2026-12-06T05:24:46 "
    "NodeList=q2node ReqTRES=cpu=1,mem=100M,node=1,billing=1 "
    "MinMemoryNode=100M StdOut=/tmp/slurmx/jobs/1_2.log\n"
    "JobId=3 ArrayJobId=1 ArrayTaskId=1 JobState=FAILED Reason=NonZeroExitCode "
    "ExitCode=3:0 RunTime=00:00:00 NodeList=q2node\n"
    "JobId=5 ArrayJobId=1 ArrayTaskId=4-7 JobState=PENDING\n"
    "JobId=9 ArrayJobId=8 ArrayTaskId=0 JobState=COMPLETED ExitCode=0:0\n";
const char *const JobCompLine =
    "JobId=6 UserId=root(0) GroupId=root(0) Name=q2t JobState=NODE_FAIL "
    "Partition=q2 TimeLimit=1 StartTime=2026-12-06T05:25:02 "
    "EndTime=2026-12-06T05:25:09 NodeList=q2node NodeCnt=1 ProcCnt=1 "
    "WorkDir=/tmp Tres=cpu=1,mem=50M,node=1,billing=1 Account= QOS= "
    "ArrayJobId=1 ArrayTaskId=3 DerivedExitCode=0:0 ExitCode=0:0\n";

TEST(SlurmParse, ScontrolAndJobComp) {
  auto t = parseScontrolJobs(ScontrolLines, "scontrol", "1");
  ASSERT_EQ(t.size(), 2u); // not the range, not array 8
  const SlurmTaskRecord &killed = t["1_2"];
  EXPECT_EQ(killed.state, "FAILED");
  EXPECT_EQ(killed.exitCode, "0:9");
  EXPECT_EQ(killed.elapsedS, 1.0);
  EXPECT_DOUBLE_EQ(*killed.memLimitMB, 104.8576);
  EXPECT_EQ(killed.log, "/tmp/slurmx/jobs/1_2.log");
  EXPECT_EQ(killed.source, "scontrol");
  // Killed by a signal that no Slurm limit explains: retryable.
  EXPECT_EQ(classifySlurmTask(killed), SlurmOutcome::Killed);
  EXPECT_EQ(classifySlurmTask(t["1_1"]), SlurmOutcome::Ended);

  auto c = parseScontrolJobs(JobCompLine, "jobcomp");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c["1_3"].state, "NODE_FAIL");
  EXPECT_EQ(c["1_3"].elapsedS, 7.0); // EndTime - StartTime
  EXPECT_DOUBLE_EQ(*c["1_3"].memLimitMB, 50 * 1.048576);
  EXPECT_EQ(c["1_3"].source, "jobcomp");
}

TEST(SlurmParse, TaskLogTellsWhatSlurmDid) {
  SlurmTaskRecord r;
  r.state = "FAILED";
  r.exitCode = "0:9";
  readTaskLog("q2-profile: Slurm task 1_2 on q2node: point h2-fixed-e2-t1\n"
              "slurmstepd-q2node: error: StepId=4.batch exceeded memory limit "
              "(315404288 > 104857600), being killed\n"
              "slurmstepd-q2node: error: Exceeded job memory limit\n",
              r);
  EXPECT_EQ(r.state, "OUT_OF_MEMORY");
  EXPECT_DOUBLE_EQ(*r.maxRssMB, 315.404288);
  EXPECT_DOUBLE_EQ(*r.memLimitMB, 104.8576);
  EXPECT_EQ(classifySlurmTask(r), SlurmOutcome::MemoryKill);

  SlurmTaskRecord t;
  readTaskLog("slurmstepd: error: *** JOB 5 ON n1 CANCELLED AT "
              "2026-12-06T05:26:02 DUE TO TIME LIMIT ***\n",
              t);
  EXPECT_EQ(t.state, "TIMEOUT");
  SlurmTaskRecord n;
  n.state = "CANCELLED";
  readTaskLog("slurmstepd-q2node: error: *** JOB 8 ON q2node CANCELLED AT "
              "2026-12-06T05:25:17 DUE TO NODE FAILURE, SEE SLURMCTLD LOG "
              "FOR DETAILS ***\n",
              n);
  EXPECT_EQ(n.state, "NODE_FAIL");
  // What sacct said is not overridden by the log.
  SlurmTaskRecord s;
  s.state = "COMPLETED";
  readTaskLog("DUE TO TIME LIMIT", s);
  EXPECT_EQ(s.state, "COMPLETED");
}

TEST(SlurmBudgets, MemAndTimeLeaveRoomForOurOwnBudget) {
  MeasureBudget b{600, 4000, 0.01, 1.0};
  // 1.1 * 4000 + 100 MB = 4500 MB = 4292 MiB (rounded up).
  EXPECT_EQ(slurmMemMiB(b), 4292u);
  // 2 * (600 + 1) + 60 s = 1262 s -> 22 min.
  EXPECT_EQ(slurmTimeMinutes(b), 22u);
  EXPECT_GT(slurmMemMiB(b) * 1.048576, b.rssBudgetMB);
}

//===----------------------------------------------------------------------===//
// Spec, records
//===----------------------------------------------------------------------===//

SweepSpec slurmSpec(const std::string &out) {
  SweepSpec s;
  s.outDir = out;
  s.molecules = {{"h2", "/x/h2.FCIDUMP", 15}};
  s.grid = {{2, 1}, {3, 3}};
  s.modes = {"fixed", "dynamic"};
  s.executor = SweepExecutor::Slurm;
  s.slurm.partition = "short";
  s.slurm.account = "chem";
  s.slurm.maxParallel = 2;
  s.slurm.sbatchArgs = {"--qos=long", "--mem=8G"};
  s.slurm.q2Profile = "/bin/sh";
  s.slurm.wait = false;
  return s;
}

TEST(SweepSpecFile, RoundTripsAndReadsOlderFiles) {
  q2::test::TempDir tmp("q2-slurm");
  SweepSpec s = slurmSpec(tmp.path);
  s.phase.killGraceS = 2.5;
  s.retryFailed = true;
  ASSERT_FALSE(bool(writeSweepSpec(tmp.file("sweep.json"), s)));
  auto back = readSweepSpec(tmp.file("sweep.json"));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->outDir, tmp.path);
  EXPECT_EQ(back->grid.size(), 2u);
  EXPECT_EQ(back->grid[1].nEst, 3u);
  EXPECT_EQ(back->molecules[0].nTerms, 15u);
  EXPECT_EQ(back->commands.phaseBC, s.commands.phaseBC);
  EXPECT_EQ(back->executor, SweepExecutor::Slurm);
  EXPECT_EQ(back->slurm.sbatchArgs, s.slurm.sbatchArgs);
  EXPECT_EQ(back->slurm.maxParallel, 2u);
  EXPECT_EQ(back->phase.killGraceS, 2.5);
  EXPECT_TRUE(back->retryFailed);

  // sweep.json as sweeps wrote it before executors existed.
  tmp.write("old.json",
            R"({"schema":"q2.sweep/1","grid":[[2,1]],"modes":["fixed"],
  "molecules":[{"name":"h2","hamiltonian":"/h","n_terms":15}],
  "commands":{"A":["a"],"BC":["b"]},"vars":{},"runs":5,"jobs":1,
  "phase_wall_s":600,"point_rss_mb":4000,"total_rss_mb":0,"poll_s":0.01,
  "only":[]})");
  auto old = readSweepSpec(tmp.file("old.json"));
  ASSERT_TRUE(bool(old)) << llvm::toString(old.takeError());
  EXPECT_EQ(old->executor, SweepExecutor::Local);
  EXPECT_EQ(old->phase.killGraceS, 1.0);

  tmp.write("bad.json", R"({"schema":"q2.sweep/1","grid":[[2,1,4]],
  "modes":[],"molecules":[],"commands":{},"vars":{},"runs":5,"jobs":1,
  "phase_wall_s":600,"point_rss_mb":4000,"total_rss_mb":0,"poll_s":0.01,
  "only":[]})");
  auto bad = readSweepSpec(tmp.file("bad.json"));
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("bad.json: grid"),
            std::string::npos);
}

TEST(SweepSpecFile, SlurmOptionsNeedTheSlurmExecutor) {
  SweepSpec s = slurmSpec("/tmp/x");
  EXPECT_FALSE(bool(validateSweepSpec(s)));
  s.executor = SweepExecutor::Local;
  llvm::Error e = validateSweepSpec(s);
  ASSERT_TRUE(bool(e));
  EXPECT_EQ(llvm::toString(std::move(e)),
            "a partition needs the slurm executor");
  s = slurmSpec("/tmp/x");
  s.slurm.q2Profile = "/no/such/q2-profile";
  e = validateSweepSpec(s);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("'/no/such/q2-profile' is not"),
            std::string::npos);
}

TEST(SlurmFailure, BudgetKillKeepsOurPeakNextToSlurms) {
  q2::test::TempDir tmp("q2-slurm");
  SweepSpec s = slurmSpec(tmp.path);
  PointId id{"h2", "fixed", 2, 1};
  std::string dir = tmp.path + "/points/" + id.key();
  // Phase A finished; Phase B+C was killed with 230 MB seen so far.
  llvm::sys::fs::create_directories(dir + "/A");
  llvm::sys::fs::create_directories(dir + "/BC");
  MeasureRecord a;
  a.command = {"q2-qpe"};
  a.wallS = 0.5;
  a.peakTreeRssMB = 20;
  std::ofstream(dir + "/A/record.json") << toJSONText(a);
  std::ofstream(dir + "/BC/live.json")
      << R"({"wall_s": 2.0, "peak_tree_rss_mb": 230.5, "max_vmhwm_mb": 231, "polls": 200})";
  SlurmTaskRecord task;
  task.jobId = "7_0";
  task.state = "OUT_OF_MEMORY";
  task.exitCode = "0:9";
  task.maxRssMB = 315.4;
  task.memLimitMB = 104.9;
  task.elapsedS = 3;
  task.source = "log";
  auto r = slurmFailureRecord(s, id, task);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, "failed");
  EXPECT_EQ(r->reason, "rss_budget");
  EXPECT_FALSE(r->retryable);
  EXPECT_EQ(r->failedPhase, "BC");
  EXPECT_TRUE(r->phases.a.has_value());
  EXPECT_FALSE(r->phases.bc.has_value());
  EXPECT_DOUBLE_EQ(r->peakRssMB, 230.5);
  EXPECT_DOUBLE_EQ(r->wallS, 2.5);
  EXPECT_EQ(r->x, 30.0);
  ASSERT_TRUE(r->slurm.has_value());
  EXPECT_EQ(r->slurm->maxRssMB, 315.4);
  EXPECT_NE(r->message->find("Slurm MaxRSS 315.4 MB, --mem 104.9 MB"),
            std::string::npos)
      << *r->message;
  EXPECT_NE(r->message->find("our peak 230.5 MB"), std::string::npos);
  // The record reads back (result.json).
  std::ofstream(tmp.file("r.json")) << toJSONText(*r);
  auto back = readPointRecord(tmp.file("r.json"));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->slurm->state, "OUT_OF_MEMORY");
  EXPECT_FALSE(back->retryable);

  task.state = "NODE_FAIL";
  r = slurmFailureRecord(s, id, task);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->reason, "node_failure");
  EXPECT_TRUE(r->retryable);
  EXPECT_FALSE(isFinished(*r, false));

  task.state = "CANCELLED";
  EXPECT_FALSE(slurmFailureRecord(s, id, task).has_value());

  // At its time limit Slurm sends SIGTERM first: the task stopped Phase B+C
  // and recorded it as cancelled; that is the phase the budget ended.
  MeasureRecord bc;
  bc.command = {"q2-opt"};
  bc.reason = StopReason::Cancelled;
  bc.cancelledBy = "SIGTERM";
  bc.wallS = 1300;
  bc.peakTreeRssMB = 900;
  std::ofstream(dir + "/BC/record.json") << toJSONText(bc);
  task.state = "TIMEOUT";
  task.elapsedS = 1320;
  r = slurmFailureRecord(s, id, task);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->reason, "wall_budget");
  EXPECT_FALSE(r->retryable);
  EXPECT_EQ(r->failedPhase, "BC");
  ASSERT_TRUE(r->phases.bc.has_value());
  EXPECT_DOUBLE_EQ(r->wallS, 1300.5);
  EXPECT_DOUBLE_EQ(r->peakRssMB, 900);
  EXPECT_NE(r->message->find("killed by Slurm at its time limit: Slurm task "
                             "7_0 TIMEOUT (exit 0:9); "),
            std::string::npos)
      << *r->message;
}

//===----------------------------------------------------------------------===//
// The controller, with scripted tools
//===----------------------------------------------------------------------===//

/// Answers sbatch/squeue/sacct/scontrol/scancel as a cluster in a given
/// state would, and records every call.
struct ScriptedSlurm {
  std::vector<std::vector<std::string>> calls;
  std::string squeue, sacct;
  bool sacctDisabled = false;
  /// squeue of a single job id Slurm has forgotten fails (Slurm 22.05).
  bool squeueForgot = false;
  std::string nextJob = "90";

  SlurmCommandRunner runner() {
    return [this](const std::vector<std::string> &argv)
               -> llvm::Expected<std::string> {
      calls.push_back(argv);
      const std::string &tool = argv.front();
      if (tool == "sbatch")
        return nextJob + "\n";
      if (tool == "squeue") {
        if (squeueForgot)
          return llvm::createStringError(
              "'squeue' failed: slurm_load_jobs error: Invalid job id "
              "specified");
        return squeue;
      }
      if (tool == "sacct") {
        if (sacctDisabled)
          return llvm::createStringError(
              "'sacct' failed: Slurm accounting storage is disabled");
        return sacct;
      }
      if (tool == "scontrol")
        return llvm::createStringError(
            "'scontrol' failed: Invalid job id specified");
      return std::string();
    };
  }
  std::vector<std::string> sbatch() const {
    for (const auto &c : calls)
      if (c.front() == "sbatch")
        return c;
    return {};
  }
};

void writeResult(const SweepSpec &s, const PointId &id,
                 const std::string &status, const std::string &jobId = "",
                 bool retryable = false) {
  PointRecord r;
  r.key = id.key();
  r.molecule = id.molecule;
  r.mode = id.mode;
  r.nEst = id.nEst;
  r.nTrotter = id.nTrotter;
  r.status = status;
  r.retryable = retryable;
  if (!jobId.empty())
    r.slurm = SlurmTaskRecord{jobId, "", "", {}, {}, {}, "", "task", ""};
  std::string dir = s.outDir + "/points/" + id.key();
  llvm::sys::fs::create_directories(dir);
  ASSERT_FALSE(bool(writePointRecord(dir + "/result.json", r)));
}

TEST(SlurmController, SubmitsOnlyWhatIsNeitherFinishedNorInTheQueue) {
  q2::test::TempDir tmp("q2-slurm");
  SweepSpec s = slurmSpec(tmp.path);
  ScriptedSlurm slurm;
  // A first submission: 4 points in array 50.
  auto first = runSlurmSweep(s, {}, slurm.runner());
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  std::vector<std::string> argv = slurm.sbatch();
  ASSERT_FALSE(argv.empty());
  std::string line = llvm::join(argv, " ");
  EXPECT_NE(line.find("--parsable --array=0-3%2 "), std::string::npos) << line;
  EXPECT_NE(line.find("--mem=4292M --time=22 --partition=short "
                      "--account=chem --qos=long --mem=8G "),
            std::string::npos)
      << line;
  EXPECT_EQ(argv.back(), tmp.path + "/slurm/1/job.sh");
  EXPECT_EQ(first->submitted, 4u);
  EXPECT_EQ(first->inFlight, 4u);
  EXPECT_EQ(first->slurmJobs, std::vector<std::string>{"90"});
  // The tasks' spec: the sweep, not restricted, with the keys in order.
  auto taskSpec = slurmTaskSpec(tmp.path + "/slurm/1", "90", 3, "n1");
  ASSERT_TRUE(bool(taskSpec)) << llvm::toString(taskSpec.takeError());
  EXPECT_EQ(taskSpec->outDir, tmp.path);
  EXPECT_EQ(taskSpec->only, std::vector<std::string>{"h2-dynamic-e3-t3"});
  EXPECT_EQ(taskSpec->executor, SweepExecutor::Local);
  EXPECT_EQ(taskSpec->slurmTask->jobId, "90_3");
  EXPECT_FALSE(bool(validateSweepSpec(*taskSpec)));
  EXPECT_FALSE(bool(slurmTaskSpec(tmp.path + "/slurm/1", "90", 4, "n1")));

  // Later: task 0 finished ok, task 1 still runs, task 2 was killed for
  // memory (no result), task 3 died with its node.
  std::vector<PointId> ids = enumeratePoints(s);
  writeResult(s, ids[0], "ok", "90_0");
  slurm.calls.clear();
  slurm.squeue = "90|1|RUNNING|0:30|n1|None\n";
  slurm.sacct = "90_2|OUT_OF_MEMORY|0:125|00:00:04||100M|n1\n"
                "90_2.batch|OUT_OF_MEMORY|0:125|00:00:04|315404K||n1\n"
                "90_3|NODE_FAIL|0:0|00:00:09||100M|n2\n";
  slurm.nextJob = "91;cluster";
  auto second = runSlurmSweep(s, {}, slurm.runner());
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  // Only the node failure goes again; the running task is not duplicated.
  line = llvm::join(slurm.sbatch(), " ");
  EXPECT_NE(line.find("--array=0-0%2 "), std::string::npos) << line;
  EXPECT_EQ(second->skipped, 1u);
  EXPECT_EQ(second->ran, 1u); // the memory kill, recorded now
  EXPECT_EQ(second->submitted, 1u);
  EXPECT_EQ(second->inFlight, 2u);
  EXPECT_EQ(second->slurmJobs, std::vector<std::string>{"91"});
  auto oom =
      readPointRecord(tmp.path + "/points/" + ids[2].key() + "/result.json");
  ASSERT_TRUE(bool(oom)) << llvm::toString(oom.takeError());
  EXPECT_EQ(oom->reason, "rss_budget");
  EXPECT_EQ(oom->slurm->source, "sacct");
  auto node =
      readPointRecord(tmp.path + "/points/" + ids[3].key() + "/result.json");
  ASSERT_TRUE(bool(node));
  EXPECT_TRUE(node->retryable);
  auto keys = slurmTaskSpec(tmp.path + "/slurm/2", "91", 0, "n1");
  ASSERT_TRUE(bool(keys));
  EXPECT_EQ(keys->only, std::vector<std::string>{ids[3].key()});

  // Status reads the same state without writing anything.
  slurm.squeue = "90|1|RUNNING|0:40|n1|None\n91|0|PENDING|0:00||Priority\n";
  auto st = sweepStatus(tmp.path, slurm.runner());
  ASSERT_TRUE(bool(st)) << llvm::toString(st.takeError());
  std::vector<std::string> states;
  for (const PointStatus &p : *st)
    states.push_back(p.state);
  EXPECT_EQ(states,
            (std::vector<std::string>{"ok", "running", "failed", "queued"}));
}

TEST(SlurmController, FallsBackWhenAccountingIsDisabled) {
  q2::test::TempDir tmp("q2-slurm");
  SweepSpec s = slurmSpec(tmp.path);
  s.grid = {{2, 1}};
  s.modes = {"fixed"};
  ScriptedSlurm slurm;
  ASSERT_TRUE(bool(runSlurmSweep(s, {}, slurm.runner())));
  // The task was killed for memory: only its output says so.
  std::ofstream(tmp.path + "/slurm/1/0.log")
      << "slurmstepd-n1: error: StepId=4.batch exceeded memory limit "
         "(315404288 > 104857600), being killed\n";
  slurm.sacctDisabled = true;
  slurm.squeueForgot = true; // the array ended long ago
  slurm.calls.clear();
  auto sum = runSlurmSweep(s, {}, slurm.runner());
  ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
  EXPECT_EQ(sum->submitted, 0u);
  ASSERT_EQ(sum->points.size(), 1u);
  const PointRecord &r = sum->points[0].record;
  EXPECT_EQ(r.reason, "rss_budget");
  EXPECT_EQ(r.slurm->source, "log");
  EXPECT_DOUBLE_EQ(*r.slurm->maxRssMB, 315.404288);
  // It asked sacct first, then scontrol.
  std::vector<std::string> tools;
  for (const auto &c : slurm.calls)
    tools.push_back(c.front());
  EXPECT_NE(llvm::find(tools, "sacct"), tools.end());
  EXPECT_NE(llvm::find(tools, "scontrol"), tools.end());
}

} // namespace
