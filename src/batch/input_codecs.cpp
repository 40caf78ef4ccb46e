#include "batch/input_codecs.h"

#include <zlib.h>
#include <zstd.h>

#include "core/error.h"

namespace sift::batch {
namespace {

class GzipCodec final : public StreamCodec {
 public:
  GzipCodec() {
    // 15 + 16: a gzip wrapper (header and CRC-32 trailer) around a 32 KiB-window deflate stream.
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) fail("zlib: cannot start a gzip decoder");
  }
  ~GzipCodec() override { inflateEnd(&stream_); }

  void reset() override { inflateReset(&stream_); }

  CodecStep decode(const char* in, size_t in_size, char* out, size_t out_capacity) override {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
    stream_.avail_in = static_cast<uInt>(std::min<size_t>(in_size, 1u << 30));
    stream_.next_out = reinterpret_cast<Bytef*>(out);
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(out_capacity, 1u << 30));
    const uInt in_before = stream_.avail_in, out_before = stream_.avail_out;
    const int status = inflate(&stream_, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR)
      fail("invalid gzip data ({})", stream_.msg ? stream_.msg : zError(status));
    return {in_before - stream_.avail_in, out_before - stream_.avail_out, status == Z_STREAM_END};
  }

 private:
  z_stream stream_{};
};

class ZstdCodec final : public StreamCodec {
 public:
  ZstdCodec() : context_(ZSTD_createDCtx()) {
    if (!context_) fail("libzstd: cannot start a zstd decoder");
  }
  ~ZstdCodec() override { ZSTD_freeDCtx(context_); }

  void reset() override { ZSTD_DCtx_reset(context_, ZSTD_reset_session_only); }

  // ZSTD_decompressStream returns 0 exactly when a frame is decoded and flushed, and does not
  // go on into the next frame in the same call.
  CodecStep decode(const char* in, size_t in_size, char* out, size_t out_capacity) override {
    ZSTD_inBuffer input{in, in_size, 0};
    ZSTD_outBuffer output{out, out_capacity, 0};
    const size_t status = ZSTD_decompressStream(context_, &output, &input);
    if (ZSTD_isError(status)) fail("invalid zstd data ({})", ZSTD_getErrorName(status));
    return {input.pos, output.pos, status == 0};
  }

 private:
  ZSTD_DCtx* context_;
};

}  // namespace

std::unique_ptr<StreamCodec> make_stream_codec(Compression compression) {
  switch (compression) {
    case Compression::gzip: return std::make_unique<GzipCodec>();
    case Compression::zstd: return std::make_unique<ZstdCodec>();
    case Compression::none: break;
  }
  fail("no decoder for uncompressed input");
}

}  // namespace sift::batch
