#pragma once
// --weights auto|f32|bf16|q8 (sift/weight_storage.h), the same option on every command that loads a model.
#include <CLI/CLI.hpp>

#include <string>

#include "sift/weight_storage.h"

namespace sift::apps {

inline CLI::Option* add_weights_option(CLI::App* cmd, std::string& value) {
  return cmd
      ->add_option("--weights", value,
                   "how weight matrices are held: auto (default: the checkpoint's type; BF16/F16 stay 16-bit, "
                   "scores bitwise those of f32) | f32 | bf16 (rounds weights to BF16; where the CPU has BF16 dot "
                   "products (AVX512_BF16, AMX) multiplies in BF16: with AMX about twice f32's speed, without it "
                   "as fast as the CPU's vdpbf16ps; scores differ slightly from f32) | q8 "
                   "(int8 blocks of 32 like GGUF Q8_0: ~30% of F32's memory, faster, scores differ slightly from f32)")
      ->check(CLI::IsMember({"auto", "f32", "bf16", "q8"}));
}

inline WeightStorage weight_storage_of(const std::string& value) { return parse_weight_storage(value).value(); }

}  // namespace sift::apps
