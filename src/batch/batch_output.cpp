#include "batch/batch_output.h"

#include <zstd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "batch/durable_file.h"
#include "batch/input_codecs.h"
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

constexpr std::string_view kRowsRole = "the rows of a sift batch job";
constexpr std::string_view kTailRole = "the lines of a sift batch job's open zstd frame";
constexpr size_t kCountBlockBytes = size_t(1) << 20;

// The lines ("\n") in the first `bytes` bytes of `path`, decoded when `zstd` (the zstd frames
// there are whole: a checkpoint records OUT's length after a closed frame).
int64_t lines_in(const std::filesystem::path& path, int64_t bytes, bool zstd) {
  std::ifstream in(path, std::ios::binary);
  const std::unique_ptr<StreamCodec> codec = zstd ? make_stream_codec(Compression::zstd) : nullptr;
  std::vector<char> block(kCountBlockBytes), decoded(zstd ? kCountBlockBytes : 0);
  int64_t lines = 0;
  bool in_frame = false;
  const auto count = [&lines](const char* data, size_t n) { lines += std::count(data, data + n, '\n'); };
  const auto decode = [&](const char* data, size_t n, int64_t at) {  // counts what it gives
    if (!in_frame) codec->reset();
    CodecStep step;
    try {
      step = codec->decode(data, n, decoded.data(), decoded.size());
    } catch (const Error& e) {
      fail("{}: byte {}: {}", path.string(), at, e.what());
    }
    count(decoded.data(), step.produced);
    in_frame = !step.stream_end;
    return step;
  };
  for (int64_t at = 0; at < bytes;) {
    const size_t n = size_t(std::min<int64_t>(int64_t(block.size()), bytes - at));
    if (!in.read(block.data(), std::streamsize(n)))
      fail("{}: cannot read bytes {}..{} to count its rows", path.string(), at, at + int64_t(n));
    if (!codec) count(block.data(), n);
    for (size_t used = 0; codec && used < n;)
      used += decode(block.data() + used, n - used, at + int64_t(used)).consumed;
    at += int64_t(n);
  }
  while (in_frame)  // what the decoder still holds of the last frame
    if (decode(nullptr, 0, bytes).produced == 0 && in_frame)
      fail("{}: its first {} bytes end inside a zstd frame", path.string(), bytes);
  return lines;
}

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
  AppendFile file = AppendFile::create(path, kRowsRole);
  sync_parent_directory(path);
  if (!zstd) return std::make_unique<PlainOutput>(std::move(file));
  const std::filesystem::path tail = tail_file_path(path);
  std::error_code ignored;
  std::filesystem::remove(tail, ignored);  // a stale tail of a job whose OUT is gone (a link: the link)
  return std::make_unique<ZstdOutput>(std::move(file), AppendFile::create(tail, kTailRole), std::string());
}

std::unique_ptr<BatchOutput> resume_batch_output(const std::filesystem::path& path, bool zstd, const OutputState& state,
                                                 int64_t rows, const std::filesystem::path& record) {
  const std::filesystem::path tail = tail_file_path(path);
  if (!zstd && state.pending != empty_file_checkpoint())
    fail("{}: records zstd frame lines for the plain output {}", record.string(), path.string());
  const bool tail_exists = std::filesystem::exists(std::filesystem::symlink_status(tail));  // a link too: refused
  if (zstd && !tail_exists && state.pending.bytes > 0)
    fail("{}: missing, but {} records {} bytes in it", tail.string(), record.string(), state.pending.bytes);
  // Every file is opened and checked, its bytes and then its rows, before any is cut.
  AppendFile file = AppendFile::resume(path, kRowsRole, state.file, record);
  std::optional<AppendFile> tail_file;
  if (zstd) tail_file = tail_exists ? AppendFile::resume(tail, kTailRole, state.pending, record)
                                    : AppendFile::create(tail, kTailRole);
  check_output_rows(path, zstd, state, rows, record);
  file.cut_to_checkpoint();
  if (!zstd) return std::make_unique<PlainOutput>(std::move(file));
  tail_file->cut_to_checkpoint();
  return std::make_unique<ZstdOutput>(std::move(file), std::move(*tail_file), read_prefix(tail, state.pending.bytes));
}

void check_output_rows(const std::filesystem::path& path, bool zstd, const OutputState& state, int64_t rows,
                       const std::filesystem::path& record) {
  const int64_t in_output = lines_in(path, state.file.bytes, zstd);
  const int64_t pending = zstd ? lines_in(tail_file_path(path), state.pending.bytes, false) : 0;
  if (in_output + pending != rows)
    fail("{}: holds {} rows{}, but {} records {}: the progress file was changed, or is another output's; nothing was "
         "changed",
         path.string(), in_output + pending, zstd ? fmt::format(" ({} of them pending in {})", pending,
                                                                tail_file_path(path).string())
                                                  : "",
         record.string(), rows);
}

}  // namespace sift::batch
