#!/usr/bin/env python3
"""Writes a GGUF file for llama.cpp from a sift/Hugging Face Qwen3 directory, with gguf-py only.

    PYTHONPATH=LLAMA_SRC/gguf-py python3 hf_to_gguf.py MODEL_DIR OUT.gguf --type f32|bf16|q8_0

llama.cpp's convert_hf_to_gguf.py reads the vocabulary through transformers.AutoTokenizer,
which Debian does not package; this script reads config.json, model.safetensors (F32, BF16,
F16) and tokenizer.json directly and writes what the converter writes for Qwen3ForCausalLM:
the qwen3 hyper-parameters, a "gpt2" BPE vocabulary with the "qwen2" pre-tokenizer (padded with
[PADi] UNUSED tokens up to vocab_size, added tokens CONTROL when special, USER_DEFINED
otherwise, or CONTROL when they look special as the converter decides), merges and special ids (gguf.SpecialVocab), and the tensors renamed by
gguf.TensorNameMap. Types follow the converter: --type q8_0 quantizes every 2-D weight (the
embedding too) to Q8_0 with gguf.quants, --type bf16 rounds them to BF16 (exact for a BF16
checkpoint); norms stay F32.
"""
import argparse
import json
import struct
import sys
from pathlib import Path

import numpy as np

import gguf

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}


def fail(message):
    sys.exit(f"hf_to_gguf.py: {message}")


def read_safetensors(path):
    """name -> float32 array (memory-mapped when the file is F32)."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
    data = np.memmap(path, dtype=np.uint8, mode="r")
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in SAFETENSORS_DTYPES:
            fail(f"{path}: tensor {name}: dtype {info['dtype']} (expected F32, F16 or BF16)")
        begin, end = info["data_offsets"]
        raw = data[base + begin:base + end].view(SAFETENSORS_DTYPES[info["dtype"]]).reshape(info["shape"])
        if info["dtype"] == "BF16":  # bf16 is the high half of an f32
            raw = (raw.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = raw.astype(np.float32, copy=False)
    return tensors


def looks_special(token):
    """Added tokens the converter makes CONTROL though not marked special (<|fim_pad|>, ...)."""
    return (token in ("<pad>", "<mask>", "<2mass>", "[@BOS@]") or (token.startswith("<|") and token.endswith("|>"))
            or (token.startswith("<\uff5c") and token.endswith("\uff5c>"))
            or (token.startswith("<unused") and token.endswith(">")))


def vocabulary(tokenizer, vocab_size):
    """tokens and token types for ids 0..vocab_size-1, as the converter's get_vocab_base."""
    model = tokenizer["model"]
    if model.get("type") != "BPE":
        fail(f"tokenizer.json: model type {model.get('type')} (expected BPE)")
    by_id = {i: t for t, i in model["vocab"].items()}
    added = {a["id"]: a for a in tokenizer.get("added_tokens", [])}
    for i, a in added.items():
        by_id[i] = a["content"]
    if max(by_id) >= vocab_size:
        fail(f"tokenizer.json has id {max(by_id)}, beyond the model's vocab_size {vocab_size}")
    tokens, types = [], []
    for i in range(vocab_size):
        if i not in by_id:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        elif i in added:
            tokens.append(by_id[i])
            control = added[i].get("special") or looks_special(by_id[i])
            types.append(gguf.TokenType.CONTROL if control else gguf.TokenType.USER_DEFINED)
        else:
            tokens.append(by_id[i])
            types.append(gguf.TokenType.NORMAL)
    return tokens, types


def write_hparams(writer, config, file_type):
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])
    head_dim = config.get("head_dim", config["hidden_size"] // config["num_attention_heads"])
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_rope_freq_base(config["rope_theta"])
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_vocab_size(config["vocab_size"])
    writer.add_file_type(file_type)


# --type: the file type, and the type of its 2-D weights (None: F32 like the rest).
FILE_TYPES = {"f32": (gguf.LlamaFileType.ALL_F32, None),
              "bf16": (gguf.LlamaFileType.MOSTLY_BF16, gguf.GGMLQuantizationType.BF16),
              "q8_0": (gguf.LlamaFileType.MOSTLY_Q8_0, gguf.GGMLQuantizationType.Q8_0)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--type", choices=sorted(FILE_TYPES), required=True)
    args = parser.parse_args()

    config = json.loads((args.model_dir / "config.json").read_text())
    if config.get("architectures") != ["Qwen3ForCausalLM"]:
        fail(f"{args.model_dir}/config.json: architectures {config.get('architectures')} (only Qwen3ForCausalLM)")
    if config.get("rope_scaling"):
        fail(f"{args.model_dir}/config.json: rope_scaling is not handled here")
    tokenizer = json.loads((args.model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    weights = read_safetensors(args.model_dir / "model.safetensors")

    file_type, matrix_type = FILE_TYPES[args.type]
    tmp = args.out.with_name(args.out.name + ".tmp")
    writer = gguf.GGUFWriter(tmp, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.QWEN3])
    writer.add_name(args.model_dir.name)
    write_hparams(writer, config, file_type)

    tokens, types = vocabulary(tokenizer, config["vocab_size"])
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    gguf.SpecialVocab(args.model_dir, load_merges=True).add_to_gguf(writer)

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.QWEN3, config["num_hidden_layers"])
    for hf_name, data in weights.items():
        name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if name is None:
            fail(f"{args.model_dir}/model.safetensors: no GGUF name for tensor {hf_name}")
        if matrix_type is not None and data.ndim == 2:
            writer.add_tensor(name, gguf.quants.quantize(data, matrix_type), raw_dtype=matrix_type)
        else:
            writer.add_tensor(name, np.ascontiguousarray(data, dtype=np.float32))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.rename(args.out)


if __name__ == "__main__":
    main()
