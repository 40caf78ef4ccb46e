#pragma once
// Streaming decoders of one compressed stream at a time: a gzip member (zlib) or a zstd frame
// (libzstd). ResumableInput (resumable_input.h) feeds them file bytes and starts a new stream after
// each one ends.
#include <cstddef>
#include <memory>

#include "batch/resumable_input.h"

namespace sift::batch {

struct CodecStep {
  size_t consumed = 0;      // input bytes taken
  size_t produced = 0;      // output bytes written
  bool stream_end = false;  // the member/frame is complete and all of it was written out
};

class StreamCodec {
 public:
  virtual ~StreamCodec() = default;
  virtual void reset() = 0;  // the next input byte starts a new member/frame
  // Decodes what it can; an Error with the codec's message for invalid data.
  virtual CodecStep decode(const char* in, size_t in_size, char* out, size_t out_capacity) = 0;
};

// gzip or zstd (not none).
std::unique_ptr<StreamCodec> make_stream_codec(Compression compression);

}  // namespace sift::batch
