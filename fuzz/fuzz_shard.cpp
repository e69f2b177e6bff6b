// Fuzzes the shard files `dasim merge` reads (results::load_shard_file + merge_shards + the CSV
// and JSON it writes): any InputError is the expected answer to a bad shard file.
#include "common/errors.hpp"
#include "fuzz_input_file.hpp"
#include "results/shard_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = dasim::fuzz::write_input(dasim::fuzz::private_dir() / "shard-0-of-1.json", data, size);
  try {
    const auto merged = dasim::results::merge_shards({dasim::results::load_shard_file(path)});
    (void)dasim::results::to_csv(merged.rows);
    (void)dasim::results::results_document(merged.header, merged.rows).dump();
  } catch (const dasim::InputError&) {
  }
  return 0;
}
