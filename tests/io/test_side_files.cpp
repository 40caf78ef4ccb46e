// What sift writes beside an output (the lock file, the temporary that replaces it) is its own
// regular file, never something planted at that name: a symbolic link to another file (the
// input, say), a FIFO, a directory or a second name of another file is refused, naming it, or
// kept out of the way, and the file it leads to is left byte for byte.
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/line_output.h"
#include "io/path_lock.h"

namespace sift {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

class SideFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sift_side_files_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write_file_atomically(victim(), kVictimText);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path victim() const { return dir_ / "rows.jsonl"; }
  fs::path output() const { return dir_ / "out.jsonl"; }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  static constexpr const char* kVictimText = "{\"id\": \"the input\"}\n";
  fs::path dir_;
};

struct Planted {
  const char* what;
  std::function<void(const fs::path& at, const fs::path& victim)> plant;
  const char* said;  // in the refusal
};

const Planted kPlanted[] = {
    {"a link to the input", [](const fs::path& at, const fs::path& victim) { fs::create_symlink(victim, at); },
     "is a symbolic link"},
    {"a dangling link", [](const fs::path& at, const fs::path&) { fs::create_symlink(at.string() + ".gone", at); },
     "is a symbolic link"},
    {"a FIFO", [](const fs::path& at, const fs::path&) { ASSERT_EQ(::mkfifo(at.c_str(), 0600), 0); },
     "is not a regular file (a FIFO)"},
    {"a directory", [](const fs::path& at, const fs::path&) { fs::create_directory(at); },
     "is not a regular file (a directory)"},
    {"a hard link to the input", [](const fs::path& at, const fs::path& victim) { fs::create_hard_link(victim, at); },
     "has other names (hard links)"},
};

// The lock file: whatever is planted at its name is refused, naming it and the output, before
// anything is opened through it; the output is not written.
TEST_F(SideFiles, ALockFileThatIsNotSiftsOwnIsRefused) {
  const fs::path lock_file = dir_ / ".out.jsonl.lock";
  for (const Planted& planted : kPlanted) {
    SCOPED_TRACE(planted.what);
    planted.plant(lock_file, victim());
    try {
      LineOutput out(output().string(), {});
      ADD_FAILURE() << "locked through " << planted.what;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr(lock_file.string()), HasSubstr(planted.said),
                                  HasSubstr("the lock file of " + output().string())));
    }
    EXPECT_EQ(read(victim()), kVictimText);
    EXPECT_FALSE(fs::exists(output()));
    EXPECT_TRUE(fs::exists(fs::symlink_status(lock_file))) << "what was planted is the user's to remove";
    fs::remove(lock_file);
  }
  const PathLock lock(output());  // once it is gone, the lock is taken
  EXPECT_EQ(lock.lock_file(), lock_file);
}

// The temporary that replaces an output has a name nothing had: links planted at the names it
// could be guessed to take (by pid and count) are neither written through nor in the way.
TEST_F(SideFiles, ATemporaryIsANewFileWhateverIsPlantedBesideTheOutput) {
  for (int n = 0; n < 1000; ++n)
    fs::create_symlink(victim(), dir_ / (".out.jsonl.tmp-" + std::to_string(::getpid()) + "-" + std::to_string(n)));
  fs::create_symlink(victim(), dir_ / "out.jsonl.tmp");
  for (int run = 0; run < 3; ++run) write_file_atomically(output(), "{\"id\": \"new\"}\n");
  LineOutput out(output().string(), {});
  out.write("{\"id\": \"lines\"}\n");
  out.commit();
  EXPECT_EQ(read(output()), "{\"id\": \"lines\"}\n");
  EXPECT_EQ(read(victim()), kVictimText);
}

}  // namespace
}  // namespace sift
