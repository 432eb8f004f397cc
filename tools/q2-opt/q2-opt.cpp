//===- q2-opt.cpp - the q2 optimizer driver -------------------------------===//
//
// mlir-opt for the QPE pipeline's dialects and passes, plus the QPE driver
// (lib/Driver).
//
//===----------------------------------------------------------------------===//
#include "q2/Driver/Driver.h"

int main(int argc, char **argv) { return q2::driver::q2OptMain(argc, argv); }
