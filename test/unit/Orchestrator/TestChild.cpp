//===- TestChild.cpp - Misbehaving child processes for orchestrator tests -===//
//
// q2-test-child MODE ARGS...
//   alloc MB [HOLD_S]        touch MB decimal MB, then sleep HOLD_S (30)
//   alloc-tree N MB          N children each touching MB, all sleep 30 s
//   sleep S                  sleep S seconds, exit 0
//   crash                    segfault (no core dump)
//   exit CODE                print to stdout and stderr, exit CODE
//   tree PIDFILE [setsid]    child + grandchild (optionally in a new
//                            session); the grandchild's pid goes to
//                            PIDFILE; everybody sleeps 60 s
//   stray PIDFILE            leave a sleeping grandchild behind, exit 0
//   ignore-term S            ignore SIGTERM, sleep S
//   printenv NAME            print $NAME
//   pwd                      print the working directory
//
//===----------------------------------------------------------------------===//

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "TestSanitizers.h"

#if Q2_ASAN
// The "crash" mode must die by SIGSEGV like an uninstrumented program, not
// by ASan's report and exit 1; "alloc" holds memory on purpose (no leak
// report at exit).
extern "C" const char *__asan_default_options() {
  return "handle_segv=0:detect_leaks=0";
}
#endif

static void sleepS(double S) {
  // Loop: signals that we ignore may still interrupt usleep.
  for (double Left = S; Left > 0; Left -= 0.05)
    usleep(50000);
}

static void touchMB(double MB) {
  size_t Bytes = size_t(MB * 1e6);
  char *P = static_cast<char *>(malloc(Bytes));
  if (!P) {
    perror("malloc");
    exit(3);
  }
  memset(P, 1, Bytes);
  // The compiler must assume the memory is used: otherwise the unused
  // allocation and its stores are removed.
  asm volatile("" : : "r"(P) : "memory");
}

static void writePidFile(const char *Path, pid_t Pid) {
  std::string Tmp = std::string(Path) + ".tmp";
  FILE *F = fopen(Tmp.c_str(), "w");
  if (!F)
    exit(4);
  fprintf(F, "%d\n", int(Pid));
  fclose(F);
  rename(Tmp.c_str(), Path); // Readers never see a partial pid.
}

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    fprintf(stderr, "usage: q2-test-child MODE ARGS...\n");
    return 2;
  }
  std::string Mode = Argv[1];
  auto Arg = [&](int I, const char *Default) {
    return I < Argc ? Argv[I] : Default;
  };
  if (Mode == "alloc") {
    touchMB(atof(Arg(2, "100")));
    sleepS(atof(Arg(3, "30")));
    return 0;
  }
  if (Mode == "alloc-tree") {
    int N = atoi(Arg(2, "2"));
    double MB = atof(Arg(3, "50"));
    for (int I = 0; I < N; ++I)
      if (fork() == 0) {
        touchMB(MB);
        sleepS(30);
        _exit(0);
      }
    sleepS(30);
    return 0;
  }
  if (Mode == "sleep") {
    sleepS(atof(Arg(2, "60")));
    return 0;
  }
  if (Mode == "crash") {
    struct rlimit NoCore = {0, 0};
    setrlimit(RLIMIT_CORE, &NoCore);
    volatile int *Null = nullptr;
    *Null = 42;
    return 0;
  }
  if (Mode == "exit") {
    printf("to stdout\n");
    fprintf(stderr, "to stderr\n");
    return atoi(Arg(2, "0"));
  }
  if (Mode == "tree") {
    const char *PidFile = Arg(2, "pid");
    bool NewSession = std::string(Arg(3, "")) == "setsid";
    if (fork() == 0) {
      if (fork() == 0) {
        if (NewSession)
          setsid(); // Leaves our process group: only the ppid walk sees it.
        writePidFile(PidFile, getpid());
        sleepS(60);
        _exit(0);
      }
      sleepS(60);
      _exit(0);
    }
    sleepS(60);
    return 0;
  }
  if (Mode == "stray") {
    const char *PidFile = Arg(2, "pid");
    pid_t C = fork();
    if (C == 0) {
      setsid();
      writePidFile(PidFile, getpid());
      sleepS(60);
      _exit(0);
    }
    // Exit only once the pid is published.
    while (access(PidFile, F_OK) != 0)
      usleep(1000);
    return 0;
  }
  if (Mode == "ignore-term") {
    signal(SIGTERM, SIG_IGN);
    sleepS(atof(Arg(2, "60")));
    return 0;
  }
  if (Mode == "printenv") {
    const char *V = getenv(Arg(2, "HOME"));
    printf("%s\n", V ? V : "(unset)");
    return 0;
  }
  if (Mode == "pwd") {
    char Buf[4096];
    printf("%s\n", getcwd(Buf, sizeof(Buf)) ? Buf : "?");
    return 0;
  }
  fprintf(stderr, "q2-test-child: unknown mode %s\n", Mode.c_str());
  return 2;
}
