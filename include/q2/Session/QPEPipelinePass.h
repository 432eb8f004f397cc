//===- QPEPipelinePass.h - q2-qpe-pipeline ----------------------*- C++ -*-===//
//
// q2-qpe-pipeline{output=F.o profile report=R.json ...}: all six stages as
// one compile session hosted on the pass's module (stages 1-4 as dynamic
// pipelines of the pass, so the host's instrumentation sees every pass;
// with a report, a q2-snapshot record brackets every stage). Takes every
// option of PipelineOptions.def, as the stage pipelines do.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SESSION_QPEPIPELINEPASS_H
#define Q2_SESSION_QPEPIPELINEPASS_H

namespace q2::session {
/// Registers q2-qpe-pipeline (idempotent).
void registerQPEPipelinePass();
} // namespace q2::session

#endif // Q2_SESSION_QPEPIPELINEPASS_H
