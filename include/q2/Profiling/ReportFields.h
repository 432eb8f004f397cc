//===- ReportFields.h - JSON field lists of the report ----------*- C++ -*-===//
//
// One field list per record type: the writer and the reader of
// q2.profile/3 and q2.snapshots/1 both use it (docs/report.md documents the
// keys). Q2ProfilingCore's; included by lib/Profiling and by libraries that
// embed a report in their own files (the orchestrator's sweep results).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_REPORTFIELDS_H
#define Q2_PROFILING_REPORTFIELDS_H

#include "q2/Support/JSON.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/ReportChecks.h"

namespace q2::profiling {

Q2_JSON_FIELDS(ProcStatus) {
  v("vm_rss_bytes", r.vmRSS);
  v("vm_hwm_bytes", r.vmHWM);
  v("vm_peak_bytes", r.vmPeak);
  v("vm_size_bytes", r.vmSize);
  v("rss_anon_bytes", r.rssAnon);
  v("rss_file_bytes", r.rssFile);
}

Q2_JSON_FIELDS(RUsage) {
  v("ru_maxrss_self_bytes", r.maxRSSSelf);
  v("ru_maxrss_children_bytes", r.maxRSSChildren);
  v("user_s", r.userS);
  v("system_s", r.systemS);
}

Q2_JSON_FIELDS(HeapInfo) {
  v("heap_in_use_bytes", r.inUse);
  v("arena_in_use_bytes", r.arenaInUse);
  v("mmapped_bytes", r.mmapped);
  v("arena_free_bytes", r.arenaFree);
}

Q2_JSON_FIELDS(MemorySnapshot) {
  v("label", r.label);
  v("pid", r.pid);
  v("self", r.self);
  v("elapsed_s", r.elapsedS);
  v("unix_time_s", r.unixTimeS);
  v("cpu_s", r.cpuS);
  v("status", r.status);
  // rusage and the heap are the caller's own: absent for other processes.
  v.when(r.self, "rusage", r.rusage);
  v.when(r.self, "heap", r.heap);
  v.optional("smaps_rollup", r.smaps);
}

Q2_JSON_FIELDS(IRMetrics) {
  v("kind", r.kind);
  v("bytes", r.bytes);
  v("lines", r.lines);
  // An object has no ops.
  v.when(r.kind != "object", "ops", r.ops);
  v.when(r.kind != "object", "histogram", r.histogram);
}

Q2_JSON_FIELDS(StatsRecord) {
  v("count", r.count);
  v("total", r.total);
  v("mean", r.mean);
  v("min", r.min);
  v("median", r.median);
  v("max", r.max);
  v("stddev", r.stddev);
}

Q2_JSON_FIELDS(TimelineSample) {
  v("t_s", r.t);
  v("rss_bytes", r.rss);
  v("stage", r.stage);
  v("pass", r.pass);
  v.unlessDefault("pass_record", r.passRecord, int64_t(-1));
  v.unlessDefault("last_pass", r.lastPass, std::string());
  v.unlessDefault("last_pass_record", r.lastPassRecord, int64_t(-1));
}

Q2_JSON_FIELDS(TimelinePeak) {
  fields(v, r.sample); // flattened: the peak is a sample plus the capture
  v.optional("smaps_rollup", r.smaps);
  v.when(r.smaps.has_value(), "smaps_at_rss_bytes", r.smapsAtRSS);
  v.when(r.smaps.has_value(), "smaps_t_s", r.smapsT);
}

Q2_JSON_FIELDS(TimelineRecord) {
  v("interval_ms", r.intervalMs);
  v("sampler", r.sampler);
  v.unlessDefault("sampler_note", r.samplerNote, std::string());
  v("sample_count", r.sampleCount);
  v("peak", r.peak);
  v.optional("error", r.error);
  v("samples", r.samples);
}

// Keys flattened into pass and stage records. Always written; reports from
// before exact heap counting lack them and read as 0 / not exact.
Q2_JSON_FIELDS(HeapFigures) {
  v.when(true, "heap_before_bytes", r.before);
  v.when(true, "heap_after_bytes", r.after);
  v.when(true, "heap_allocated_bytes", r.allocated);
  v.when(true, "heap_alloc_count", r.allocCount);
  v.when(true, "heap_peak_bytes", r.peak);
  v.when(true, "heap_exact", r.exact);
}

Q2_JSON_FIELDS(PassRecord) {
  v("index", r.index);
  v("parent", r.parent);
  v("depth", r.depth);
  v("thread", r.thread);
  v("name", r.name);
  v("argument", r.argument);
  v("op", r.opName);
  v.unlessDefault("op_symbol", r.opSymbol, std::string());
  v("stage", r.stage);
  v("adaptor", r.isAdaptor);
  v("failed", r.failed);
  // Written only for records a failure left open.
  bool unfinished = !r.finished;
  v.unlessDefault("unfinished", unfinished, false);
  if constexpr (std::remove_reference_t<decltype(v)>::reading)
    r.finished = !unfinished;
  v("start_s", r.startS);
  v("end_s", r.endS);
  v("wall_s", r.wallS);
  v("self_wall_s", r.selfWallS);
  v("cpu_s", r.cpuS);
  v("profiler_s", r.profilerS);
  v("rss_before_bytes", r.rssBefore);
  v("rss_after_bytes", r.rssAfter);
  v("rss_delta_bytes", r.rssDelta);
  fields(v, r.heap);
  v.optional("ir_after", r.irAfter);
}

Q2_JSON_FIELDS(StageRecord) {
  v("name", r.name);
  v("kind", r.kind);
  v("index", r.index);
  v("wall_s", r.wallS);
  v("cpu_s", r.cpuS);
  // Repeated from the snapshots for readers of the file.
  v.derived("rss_before_bytes", r.begin.status.vmRSS);
  v.derived("rss_after_bytes", r.end.status.vmRSS);
  // (Before exact heap counting, heap_after_bytes was the end snapshot's
  // mallinfo2 figure; such a report reads it as a not exact one.)
  fields(v, r.heap);
  v("peak_rss_bytes", r.peakRSS);
  v("peak_source", r.peakSource);
  v("peak_reset_accepted", r.peakResetAccepted);
  v.unlessDefault("peak_reset_error", r.peakResetError, std::string());
  v("sampled_peak_rss_bytes", r.sampledPeakRSS);
  v.optional("sampled_peak", r.sampledPeak);
  v("first_pass", r.firstPass);
  v("end_pass", r.endPass);
  v("profiler_s", r.profilerS);
  v("begin", r.begin);
  v("end", r.end);
  v.optional("ir", r.ir);
}

// Flattened into the session record. Absent in reports from before exact
// heap counting.
Q2_JSON_FIELDS(HeapPeakRecord) {
  v.when(true, "heap_peak_bytes", r.peak);
  v.when(true, "heap_peak_pass", r.pass);
  v.when(true, "heap_peak_pass_record", r.passRecord);
  v.when(true, "heap_peak_stage", r.stage);
  v.when(true, "lifetime_heap_peak_bytes", r.lifetimePeak);
  v.when(true, "heap_exact", r.exact);
}

Q2_JSON_FIELDS(SessionRecord) {
  v("stages", r.stages);
  v("passes", r.passes);
  v("snapshots", r.snapshots);
  v("timeline", r.timeline);
  v("warnings", r.warnings);
  v("lifetime_peak_rss_bytes", r.lifetimePeakRSS);
  v("profiler_overhead_s", r.profilerOverheadS);
  fields(v, r.heap);
}

/// A q2.profile/2 report's "parameters" under /3's keys (QPEMetadata.def):
/// n_system_qubits -> n_system, n_estimation_wires -> n_est, and the words
/// and coefficients /2 did not have, empty.
json::RawObject upgradeParametersV2(const json::RawObject &v2);

Q2_JSON_FIELDS(CacheRecord) {
  v("path", r.path);
  v("status", r.status);
}

Q2_JSON_FIELDS(PhaseARecord) {
  v("format", r.format);
  v("n_qubits", r.nQubits);
  v("n_electrons", r.nElectrons);
  v("n_terms", r.nTerms);
  v("n_est", r.nEst);
  v("n_trotter", r.nTrotter);
  v("resolution", r.resolution);
  v("mode", r.mode);
  v("hamiltonian_s", r.hamiltonianS);
  v("program_s", r.programS);
  v("wall_s", r.wallS);
  v("cpu_s", r.cpuS);
  v("peak_rss_bytes", r.peakRSS);
  v("program_bytes", r.programBytes);
}

Q2_JSON_FIELDS(BlockRecord) {
  v("num_qubits", r.numQubits);
  v("num_controls", r.numControls);
  v("count", r.count);
  v("num_gates", r.numGates);
  v.optional("num_ops", r.numOps);
  v("occurrences", r.occurrences);
  v("method", r.method);
  v("reused", r.reused);
  v("seconds", r.seconds);
  v.optional("products", r.products);
  v.optional("dense_dim", r.denseDim);
  v.optional("cosets", r.cosets);
  v.optional("path", r.path);
  v.optional("subspace_dim", r.subspaceDim);
}

Q2_JSON_FIELDS(PathRecord) {
  v("path", r.path);
  v("qubits", r.qubits);
  v("live_qubits", r.liveQubits);
  v("subspace_dim", r.subspaceDim);
  v("seconds", r.seconds);
  v("eigen_seconds", r.eigenSeconds);
  v("bytes", r.bytes);
  v("note", r.note);
}

Q2_JSON_FIELDS(PhaseCSetRecord) {
  v("label", r.label);
  v("prob_sum", r.probSum);
  v("argmax", r.argmax);
  v("phase", r.phase);
  v("energy", r.energy);
  // Added within q2.profile/2; reports without them still read (as 0/unset).
  v.unlessDefault("resolution", r.resolution, 0.0);
  v.optional("trotter_bound", r.trotterBound);
  v.unlessDefault("peak_mass", r.peakMass, 0.0);
  v.unlessDefault("peak_energy", r.peakEnergy, 0.0);
  v.optional("exact_energy", r.exactEnergy);
  v.optional("error_resolutions", r.errorResolutions);
  v("call_s", r.callS);
  v("probabilities", r.probabilities);
  v("blocks", r.blocks);
  v.optional("execution", r.execution);
  v.optional("peak_rss_bytes", r.peakRSS);
  v.optional("warning", r.warning);
}

Q2_JSON_FIELDS(PhaseCRecord) {
  v("runtime", r.runtime);
  v("calls_per_set", r.callsPerSet);
  v("threads", r.threads);
  v("sets", r.sets);
  v.optional("error", r.error);
  v.unlessDefault("skipped", r.skipped, false);
  v.optional("reason", r.reason);
  v.optional("qubits", r.qubits);
  v.optional("bytes_needed", r.bytesNeeded);
  v.optional("limit", r.limit);
}

Q2_JSON_FIELDS(ProfileReport) {
  v("schema", r.schema);
  v("tool", r.tool);
  v("input", r.input);
  v("error", r.error);
  v.optional("parameters", r.parameters);
  if constexpr (V::reading) {
    if (r.schema == kReportSchemaV2) {
      // Upgraded as read: written back, it is a /3 report.
      if (r.parameters)
        r.parameters = upgradeParametersV2(*r.parameters);
      r.schema = kReportSchema;
    }
  }
  v("options", r.options);
  v.optional("cache", r.cache);
  v.optional("phase_a", r.phaseA);
  v("phase_b", r.phaseB);
  v.optional("phase_c", r.phaseC);
  v("lifetime_peak_rss_bytes", r.lifetimePeakRSS);
  v.derived("compile_s", r.compileSeconds());
  // Repeated from phase_b for readers of the file.
  v.derived("heap_peak_bytes", r.phaseB.heap.peak);
  v.derived("heap_peak_pass", r.phaseB.heap.pass);
  v.derived("heap_peak_stage", r.phaseB.heap.stage);
  v.derived("lifetime_heap_peak_bytes", r.phaseB.heap.lifetimePeak);
  v.derived("heap_exact", r.phaseB.heap.exact);
}

Q2_JSON_FIELDS(SnapshotEntry) {
  v("index", r.index);
  fields(v, r.snapshot); // flattened: a snapshot plus IR sizes
  v.optional("ir", r.ir);
  v.optional("llvm_ir", r.llvmIR);
  v.optional("object", r.object);
}

Q2_JSON_FIELDS(SnapshotFile) {
  v("schema", r.schema);
  v("snapshots", r.snapshots);
}

} // namespace q2::profiling

#endif // Q2_PROFILING_REPORTFIELDS_H
