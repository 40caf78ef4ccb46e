// Every file sift writes goes through AtomicFile (and PathLock, LineOutput); what the output
// path names decides how: a regular file is replaced through a temporary, a device or FIFO
// is written directly and stays what it was, a symbolic link stays a link, a directory is
// refused. The device is a private node made with mknod in a temporary folder (the test
// skips where mknod is not permitted), never the machine's /dev/null.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/file_identity.h"
#include "io/line_output.h"
#include "io/path_lock.h"

namespace sift {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class OutputNodes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sift_output_nodes_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A private null device (char 1:3) in the test folder; empty where mknod is not permitted.
  fs::path null_device() {
    const fs::path path = dir_ / "null";
    return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 ? path : fs::path();
  }

  // The names in the test folder, sorted (to see that nothing was left beside an output).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

bool is_char_device(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISCHR(info.st_mode);
}

bool is_named_pipe(const fs::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode);
}

TEST_F(OutputNodes, ADeviceIsWrittenDirectlyAndStaysADevice) {
  const fs::path device = null_device();
  if (device.empty()) GTEST_SKIP() << "mknod is not permitted here";
  EXPECT_EQ(output_kind(device), OutputKind::stream);
  write_file_atomically(device, "{\"written\": true}\n");
  EXPECT_TRUE(is_char_device(device));
  {
    AtomicFile file(device);
    EXPECT_TRUE(file.writes_directly());
    file.write("abc");
    // Nothing a regular file's failure path does applies: it cannot be cut back or kept aside.
    try {
      file.truncate(0);
      ADD_FAILURE() << "cut back a device";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("is not a regular file"));
    }
    file.commit();
  }
  {
    AtomicFile abandoned(device);  // destroyed without commit: nothing to remove
    abandoned.write("x");
  }
  EXPECT_TRUE(is_char_device(device));
  EXPECT_EQ(entries(), std::vector<std::string>{"null"});  // no temporary, no lock file beside it
}

TEST_F(OutputNodes, ADeviceIsNotLockedSoRunsShareIt) {
  const fs::path device = null_device();
  if (device.empty()) GTEST_SKIP() << "mknod is not permitted here";
  const PathLock first(device);
  const PathLock second(device);  // a regular file would refuse this one
  EXPECT_TRUE(first.lock_file().empty());
  EXPECT_EQ(entries(), std::vector<std::string>{"null"});
  // Two LineOutputs at once on one device, each committed.
  LineOutput a(device.string(), {}), b(device.string(), {});
  a.write("{\"a\": 1}\n");
  b.write("{\"b\": 1}\n");
  a.commit();
  b.commit();
  EXPECT_TRUE(is_char_device(device));
  EXPECT_EQ(entries(), std::vector<std::string>{"null"});
}

TEST_F(OutputNodes, ADeviceThatIsAlsoReadIsNoOverwrite) {
  const fs::path device = null_device();
  if (device.empty()) GTEST_SKIP() << "mknod is not permitted here";
  const std::vector<NamedInput> inputs = {{device, "--input"}};
  EXPECT_NO_THROW(refuse_output_over_inputs(device, inputs));  // writing a device destroys nothing
  const fs::path rows = dir_ / "rows.jsonl";
  write_file_atomically(rows, "{}\n");
  const std::vector<NamedInput> file_inputs = {{rows, "--input"}};
  EXPECT_THROW(refuse_output_over_inputs(rows, file_inputs), Error);  // a regular file still is refused
}

TEST_F(OutputNodes, AFifoIsWrittenDirectlyToItsReader) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  std::string lines;
  for (int i = 0; i < 20000; ++i) lines += "{\"row\": " + std::to_string(i) + "}\n";  // more than a pipe holds
  std::future<std::string> reader = std::async(std::launch::async, [&] { return read(fifo); });
  LineOutput output(fifo.string(), {});
  output.write(lines);
  output.commit();
  EXPECT_EQ(reader.get(), lines);
  EXPECT_TRUE(is_named_pipe(fifo));
  EXPECT_EQ(entries(), std::vector<std::string>{"pipe"});
}

TEST_F(OutputNodes, ASymbolicLinkStaysALinkAndItsFileIsReplaced) {
  fs::create_directories(dir_ / "real");
  const fs::path file = dir_ / "real" / "out.jsonl";
  write_file_atomically(file, "old\n");
  const fs::path link = dir_ / "link.jsonl";
  fs::create_symlink(file, link);
  {
    const PathLock lock(link);  // the lock is the file's: taken by either name
    EXPECT_EQ(lock.lock_file(), fs::canonical(dir_ / "real") / ".out.jsonl.lock");
    EXPECT_THROW(PathLock{file}, Error);
  }
  LineOutput output(link.string(), {});
  output.write("new\n");
  output.commit();
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read(file), "new\n");
  EXPECT_EQ(entries(), (std::vector<std::string>{"link.jsonl", "real"}));
}

TEST_F(OutputNodes, ADirectoryIsRefusedBeforeAnythingIsWritten) {
  try {
    AtomicFile file(dir_);
    ADD_FAILURE() << "wrote over a directory";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a directory"));
  }
  const fs::path file = dir_ / "file";
  write_file_atomically(file, "x");
  try {
    create_output_directory(file, "--out");
    ADD_FAILURE() << "a file taken for a folder";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("exists and is not a folder; --out names the folder"));
  }
  EXPECT_EQ(read(file), "x");
}

}  // namespace
}  // namespace sift
