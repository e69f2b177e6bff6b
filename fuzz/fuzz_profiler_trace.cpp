// Fuzzes `dasim workload import` (workload::import_profiler_trace + imported_workload_json): the
// input is the torch.profiler Chrome trace, read from a file as the command reads it. Any
// InputError is the expected answer to a bad trace.
#include "common/errors.hpp"
#include "fuzz_input_file.hpp"
#include "workload/profiler_trace_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dasim::workload::TraceImportOptions options;
  options.trace_file = dasim::fuzz::write_input(dasim::fuzz::private_dir() / "trace.json", data, size);
  options.batch = 32;
  try {
    const auto imported = dasim::workload::import_profiler_trace(options);
    (void)dasim::workload::imported_workload_json(imported).dump();
    (void)dasim::workload::render_import_summary(imported, "out.json");
  } catch (const dasim::InputError&) {
  }
  return 0;
}
