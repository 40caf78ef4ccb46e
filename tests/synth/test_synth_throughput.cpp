// Scale: 20k members (400k pairs) generate and write without error. Not timed; in the Release
// build this takes a few seconds per core.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <unistd.h>

#include "synth/dataset.h"

using namespace sift::synth;
namespace fs = std::filesystem;

TEST(SynthThroughput, TwentyThousandMembers) {
  fs::path dir = fs::temp_directory_path() / ("sift_synth_throughput_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  SynthOptions options;
  options.out_dir = dir;
  options.n_members = 20000;
  SynthSummary summary = write_synth_dataset(options);
  int64_t lines = 0;
  for (const char* file : {"train.jsonl", "validation.jsonl", "test.jsonl"}) {
    std::ifstream in(dir / file);
    for (std::string line; std::getline(in, line);) ++lines;
  }
  EXPECT_EQ(lines, 20000);
  EXPECT_EQ(summary.all().pairs, 20000 * 20);
  fs::remove_all(dir);
}
