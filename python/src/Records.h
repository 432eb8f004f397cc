//===- Records.h - _q2: the typed record classes ----------------*- C++ -*-===//
//
// Every record the libraries produce (snapshots, timelines, the profile
// report and its stages/passes, program metadata, measure and sweep-point
// records) is a Python class of its own, with one read-only property per key
// of its JSON field list (lib/Profiling/ReportFields.h,
// lib/Orchestrator/RecordFields.h, QPEMetadata.def): the keys a report file
// has are the attribute names, written once.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PYTHON_RECORDS_H
#define Q2_PYTHON_RECORDS_H

#include "q2/Profiling/Report.h"

#include <pybind11/pybind11.h>

namespace q2py {

/// What compile() hands to Python as its profile: the report itself.
using PyReport = q2::profiling::ProfileReport;

/// The record classes, the memory and timing functions returning them, and
/// reading reports.
void bindRecords(pybind11::module_ &m);
/// measure, sweeps (typed options, progress events, results).
void bindOrchestrator(pybind11::module_ &m);

} // namespace q2py

#endif // Q2_PYTHON_RECORDS_H
