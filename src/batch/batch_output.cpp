#include "batch/batch_output.h"

#include <zstd.h>

#include <fstream>
#include <string>

#include "batch/durable_file.h"
#include "core/error.h"

namespace sift::batch {
namespace {

class PlainOutput final : public BatchOutput {
 public:
  explicit PlainOutput(AppendFile file) : file_(std::move(file)) {}
  void append_line(std::string_view line) override {
    file_.append(line);
    file_.append("\n");
  }
  void sync() override { file_.sync(); }
  void finish() override { file_.sync(); }
  OutputState state() const override { return {file_.checkpoint(), empty_file_checkpoint()}; }

 private:
  AppendFile file_;
};

// One zstd frame of `text` (deterministic: one-shot, single-threaded, fixed parameters).
std::string compress_frame(std::string_view text, const std::filesystem::path& where) {
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!context) fail("{}: libzstd cannot start a compressor", where.string());
  ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(context.get(), ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(context.get(), ZSTD_c_contentSizeFlag, 1);
  std::string frame(ZSTD_compressBound(text.size()), '\0');
  const size_t n = ZSTD_compress2(context.get(), frame.data(), frame.size(), text.data(), text.size());
  if (ZSTD_isError(n)) fail("{}: zstd compression failed: {}", where.string(), ZSTD_getErrorName(n));
  frame.resize(n);
  return frame;
}

class ZstdOutput final : public BatchOutput {
 public:
  ZstdOutput(AppendFile file, AppendFile tail, std::string open_frame)
      : file_(std::move(file)), tail_(std::move(tail)), frame_(std::move(open_frame)) {}

  void append_line(std::string_view line) override {
    frame_.append(line);
    frame_.push_back('\n');
    tail_.append(line);
    tail_.append("\n");
    if (int64_t(frame_.size()) >= kZstdFrameBytes) close_frame();
  }
  void sync() override {
    file_.sync();
    tail_.sync();
  }
  bool frame_closed() const override { return frame_closed_; }
  void checkpoint_done() override {
    if (!frame_closed_) return;
    tail_.clear();  // the checkpoint has the closed frame in OUT and no pending lines
    frame_closed_ = false;
  }
  void finish() override {
    if (!frame_.empty() || file_.length() == 0) close_frame();
    sync();
  }
  void remove_side_files() override {
    std::error_code ignored;
    std::filesystem::remove(tail_.path(), ignored);
  }
  // Until checkpoint_done() empties it after a frame closed, the tail file holds the closed
  // frame's lines, which are in OUT: none pending. Else it holds exactly the open frame's.
  OutputState state() const override {
    return {file_.checkpoint(), frame_closed_ ? empty_file_checkpoint() : tail_.checkpoint()};
  }

 private:
  void close_frame() {
    file_.append(compress_frame(frame_, file_.path()));
    frame_.clear();
    frame_closed_ = true;
  }

  AppendFile file_;
  AppendFile tail_;
  std::string frame_;  // the open frame's lines
  bool frame_closed_ = false;
};

std::string read_prefix(const std::filesystem::path& path, int64_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string text(size_t(n), '\0');
  if (!in.read(text.data(), n)) fail("{}: cannot read its first {} bytes", path.string(), n);
  return text;
}

}  // namespace

bool is_zstd_output(const std::filesystem::path& path) { return path.extension() == ".zst"; }

std::filesystem::path tail_file_path(const std::filesystem::path& output) {
  std::filesystem::path tail = output;
  tail += ".progress.tail";
  return tail;
}

std::unique_ptr<BatchOutput> create_batch_output(const std::filesystem::path& path, bool zstd) {
  AppendFile file = AppendFile::create(path);
  sync_parent_directory(path);
  if (!zstd) return std::make_unique<PlainOutput>(std::move(file));
  const std::filesystem::path tail = tail_file_path(path);
  std::error_code ignored;
  std::filesystem::remove(tail, ignored);  // a stale tail of a job whose OUT is gone: no checkpoint uses it
  return std::make_unique<ZstdOutput>(std::move(file), AppendFile::create(tail), std::string());
}

std::unique_ptr<BatchOutput> resume_batch_output(const std::filesystem::path& path, bool zstd, const OutputState& state,
                                                 const std::filesystem::path& record) {
  const std::filesystem::path tail = tail_file_path(path);
  if (!zstd && state.pending != empty_file_checkpoint())
    fail("{}: records zstd frame lines for the plain output {}", record.string(), path.string());
  const bool tail_exists = std::filesystem::exists(tail);
  if (zstd && !tail_exists && state.pending.bytes > 0)
    fail("{}: missing, but {} records {} bytes in it", tail.string(), record.string(), state.pending.bytes);
  // Both files are checked before either is cut.
  if (zstd && tail_exists) FileDigest::resume(tail, state.pending, record);
  AppendFile file = AppendFile::resume(path, state.file, record);
  if (!zstd) return std::make_unique<PlainOutput>(std::move(file));
  if (!tail_exists) return std::make_unique<ZstdOutput>(std::move(file), AppendFile::create(tail), std::string());
  AppendFile tail_file = AppendFile::resume(tail, state.pending, record);
  return std::make_unique<ZstdOutput>(std::move(file), std::move(tail_file), read_prefix(tail, state.pending.bytes));
}

}  // namespace sift::batch
