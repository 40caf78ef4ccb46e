#!/usr/bin/python3
"""Float64 scoring reference: P(yes) of each (query, item) prompt of a checkpoint, computed by
the independent PyTorch forward pass of make_golden.py, one separate causal prompt per item.

    /usr/bin/python3 tests/golden/score_reference.py CHECKPOINT_DIR PROMPT_IDS_JSONL

PROMPT_IDS_JSONL (from tools/prompt_ids_reference.js, Hugging Face tokenizers):
    {"query_ids", "item_ids": [[...]...], "yes", "no"} per row.
Prints one line per row: {"scores": [P(yes) per item]}, where for item i the prompt is
query_ids ++ item_ids[i] at positions 0..n-1 and
    P(yes) = 1 / (1 + exp(l_no - l_yes))   at its last token (design: docs/scoring-contract.md).
The checkpoint (config.json + model.safetensors in F32/BF16/F16) is read here with a plain
safetensors parser; nothing is shared with sift.
"""
import json
import math
import os
import struct
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_golden import F64, forward  # noqa: E402

TORCH_DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}
MODEL_TYPES = {"Qwen3ForCausalLM": "qwen3", "Qwen2ForCausalLM": "qwen2", "LlamaForCausalLM": "llama"}


def read_safetensors(path):
    """name -> float64 tensor, exactly the stored values."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
        data = f.read()
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = bytearray(data[begin:end])
        t = torch.frombuffer(raw, dtype=TORCH_DTYPES[info["dtype"]]) if raw else torch.empty(0)
        tensors[name] = t.reshape(info["shape"]).to(F64)
    return tensors


def case_of(config):
    """The make_golden.forward case fields from a Hugging Face config.json."""
    case = {key: config.get(key) for key in (
        "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
        "intermediate_size", "vocab_size", "rope_theta", "rms_norm_eps", "tie_word_embeddings", "rope_scaling")}
    case["model_type"] = MODEL_TYPES[config["architectures"][0]]
    case["rope_theta"] = case["rope_theta"] or 10000.0
    case["rms_norm_eps"] = case["rms_norm_eps"] or 1e-6
    return case


def p_yes(logit_yes, logit_no):
    return 1.0 / (1.0 + math.exp(logit_no - logit_yes))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: score_reference.py CHECKPOINT_DIR PROMPT_IDS_JSONL")
    torch.set_num_threads(1)
    directory, ids_path = sys.argv[1:]
    with open(os.path.join(directory, "config.json")) as f:
        case = case_of(json.load(f))
    weights = read_safetensors(os.path.join(directory, "model.safetensors"))
    with open(ids_path) as f, torch.no_grad():
        for line in f:
            row = json.loads(line)
            scores = []
            for item_ids in row["item_ids"]:
                ids = row["query_ids"] + item_ids
                logits = forward(case, weights, ids, list(range(len(ids))), [[0, len(ids), 0]], [len(ids) - 1])[0]
                scores.append(p_yes(float(logits[row["yes"]]), float(logits[row["no"]])))
            print(json.dumps({"scores": scores}), flush=True)


if __name__ == "__main__":
    main()
