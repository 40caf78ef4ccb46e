// libFuzzer target: load arbitrary bytes as tokenizer.json. Anything malformed must give
// sift::Error, never a crash; whatever loads must encode and decode a fixed text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"
#include "tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto tokenizer =
        sift::Tokenizer::from_json_string(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    for (const auto special_text : {sift::SpecialText::Recognise, sift::SpecialText::AsPlainText}) {
      const auto ids = tokenizer->encode("Hello <s> wörld 123  \n\t<|im_end|> ab-c", {true, special_text});
      tokenizer->decode(ids, false);
    }
  } catch (const sift::Error&) {
    // malformed config: a clear error is the contract
  }
  return 0;
}
