#pragma once
// A `sift train` run's inputs in a temporary folder for train/train_run.h tests: 60 skill
// rows (train.jsonl), the tiny tokenizer and a tiny Qwen3 config.json; options() points a run
// at them (out: DIR/out, one thread), error_of() runs one and returns its Error's message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "skill_rows.h"
#include "tiny_config.h"
#include "tiny_tokenizer.h"
#include "train/train_run.h"

namespace sift::train::testing {

class TrainRunFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("sift_" + std::string(test->test_suite_name()) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    write_skill_rows(dir_ / "train.jsonl", 60, 1);
    write_tiny_tokenizer(dir_ / "tokenizer.json");
    std::ofstream(dir_ / "config.json") << model_config_to_json(tiny_config("qwen3", kTinyTokenizerVocab)).dump();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  TrainRunOptions base_options() const {
    TrainRunOptions o;
    o.train = dir_ / "train.jsonl";
    o.out = dir_ / "out";
    o.config = dir_ / "config.json";
    o.tokenizer = dir_ / "tokenizer.json";
    o.threads = 1;
    o.training.lr = 3e-3;
    return o;
  }

  static std::string error_of(TrainRunOptions o) {
    try {
      run_training(std::move(o));
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }

  std::filesystem::path dir_;
};

}  // namespace sift::train::testing
