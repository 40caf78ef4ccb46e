#!/usr/bin/python3
"""Independent PyTorch reference for sift's forward pass: writes small random checkpoints and
golden logits computed in float64.

    /usr/bin/python3 tests/golden/make_golden.py OUT_DIR

For each case it writes OUT_DIR/<arch>_<dtype>/{config.json, model.safetensors, golden.json}
(arch: qwen3, qwen2, llama; dtype: f32, bf16, and f16 for qwen3). Nothing here shares code
with sift: its own RNG (torch.Generator), its own safetensors writer, and a plain
re-implementation of Qwen3ForCausalLM / Qwen2ForCausalLM / LlamaForCausalLM following the
Hugging Face transformers modeling code:

    x = embed_tokens[ids]
    per layer:
        h = RMSNorm(x) ; q = h Wq^T (+bq), k = h Wk^T (+bk), v = h Wv^T (+bv)
        Qwen3: q, k = RMSNorm_head_dim(q), RMSNorm_head_dim(k)   (per head, before RoPE)
        q, k = RoPE(q, positions), RoPE(k, positions)   rotate_half: [x1, x2] -> [-x2, x1]
        GQA: each group of n_heads / n_kv_heads query heads reads one k/v head (repeat_kv)
        a = softmax(q k^T / sqrt(head_dim) + mask) v ; x = x + a Wo^T (+bo)
        h = RMSNorm(x) ; x = x + (silu(h Wg^T) * (h Wu^T)) Wd^T
    logits = RMSNorm(x) lm_head^T   (lm_head = embed_tokens when tied)
    RMSNorm(x) = x / sqrt(mean(x^2) + eps) * weight

The attention mask is dense and built from the segment rule of src/model/model.h:
segment [start, len, context_len]: token start+j sees keys [0, context_len) and
start..start+j. All math is float64; BF16/F16 checkpoints are computed from the rounded
weights exactly as stored.

golden.json:
  {"arch": "qwen3", "dtype": "bf16", "architecture": "Qwen3ForCausalLM",
   "max_abs_logit": M, "tolerance": 1e-4 * max(1, M),
   "probes": [{"name", "ids", "positions", "segments": [[start, len, context_len], ...],
               "logit_rows": [...], "logits": [[vocab_size floats] per logit row],
               "max_abs_logit"}]}
"""
import json
import math
import os
import struct
import sys

import torch

F64 = torch.float64

# name -> (HF architecture, config fields, tied, qkv bias)
CASES = {
    "qwen3": dict(
        architecture="Qwen3ForCausalLM", model_type="qwen3",
        hidden_size=64, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2,
        head_dim=32,  # deliberately != hidden_size / num_attention_heads
        intermediate_size=128, vocab_size=300, rope_theta=1000000.0, rms_norm_eps=1e-6,
        tie_word_embeddings=True, attention_bias=False, seed=1),
    "qwen2": dict(
        architecture="Qwen2ForCausalLM", model_type="qwen2",
        hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        head_dim=None,  # Qwen2 configs carry no head_dim: hidden_size / num_attention_heads
        intermediate_size=128, vocab_size=300, rope_theta=1000000.0, rms_norm_eps=1e-6,
        tie_word_embeddings=False, attention_bias=True, seed=2),
    "llama": dict(
        architecture="LlamaForCausalLM", model_type="llama",
        hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        head_dim=16, intermediate_size=128, vocab_size=300, rope_theta=500000.0, rms_norm_eps=1e-5,
        tie_word_embeddings=False, attention_bias=False, seed=3,
        # original context 1024: wavelengths < 256 kept, > 1024 divided by 8, between smoothed
        rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                          original_max_position_embeddings=1024)),
}
DTYPES = {"f32": (torch.float32, "F32", "float32"),
          "bf16": (torch.bfloat16, "BF16", "bfloat16"),
          "f16": (torch.float16, "F16", "float16")}
CHECKPOINTS = [("qwen3", "f32"), ("qwen3", "bf16"), ("qwen3", "f16"),
               ("qwen2", "f32"), ("qwen2", "bf16"),
               ("llama", "f32"), ("llama", "bf16")]
MAX_POSITION_EMBEDDINGS = 4096


def head_dim_of(case):
    return case["head_dim"] or case["hidden_size"] // case["num_attention_heads"]


def config_json(case, torch_dtype_name):
    config = {
        "architectures": [case["architecture"]], "model_type": case["model_type"],
        "hidden_size": case["hidden_size"], "num_hidden_layers": case["num_hidden_layers"],
        "num_attention_heads": case["num_attention_heads"],
        "num_key_value_heads": case["num_key_value_heads"],
        "intermediate_size": case["intermediate_size"], "vocab_size": case["vocab_size"],
        "max_position_embeddings": MAX_POSITION_EMBEDDINGS, "rope_theta": case["rope_theta"],
        "rms_norm_eps": case["rms_norm_eps"], "tie_word_embeddings": case["tie_word_embeddings"],
        "hidden_act": "silu", "torch_dtype": torch_dtype_name, "bos_token_id": 1, "eos_token_id": 2,
    }
    if case["head_dim"] is not None:
        config["head_dim"] = case["head_dim"]
    if case["model_type"] != "qwen2":
        config["attention_bias"] = case["attention_bias"]
    config["rope_scaling"] = case.get("rope_scaling")
    return config


def random_weights(case):
    """HF tensor names -> float32 tensors (row-major, Linear weights are (out, in))."""
    g = torch.Generator().manual_seed(case["seed"])
    H, I, V = case["hidden_size"], case["intermediate_size"], case["vocab_size"]
    hd = head_dim_of(case)
    q_dim, kv_dim = case["num_attention_heads"] * hd, case["num_key_value_heads"] * hd

    def normal(shape, std):
        return torch.randn(shape, generator=g, dtype=torch.float32) * std

    def linear(out_dim, in_dim):  # activations keep O(1) scale
        return normal((out_dim, in_dim), 1.0 / math.sqrt(in_dim))

    def norm(dim):  # around 1 with noise
        return 1.0 + normal((dim,), 0.1)

    w = {"model.embed_tokens.weight": normal((V, H), 0.4)}  # logits ~ 8 * 0.4 = O(3)
    for i in range(case["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = norm(H)
        w[p + "self_attn.q_proj.weight"] = linear(q_dim, H)
        w[p + "self_attn.k_proj.weight"] = linear(kv_dim, H)
        w[p + "self_attn.v_proj.weight"] = linear(kv_dim, H)
        w[p + "self_attn.o_proj.weight"] = linear(H, q_dim)
        if case["attention_bias"]:
            w[p + "self_attn.q_proj.bias"] = normal((q_dim,), 0.1)
            w[p + "self_attn.k_proj.bias"] = normal((kv_dim,), 0.1)
            w[p + "self_attn.v_proj.bias"] = normal((kv_dim,), 0.1)
            if case["model_type"] != "qwen2":  # Llama / Qwen3 attention_bias also covers o_proj
                w[p + "self_attn.o_proj.bias"] = normal((H,), 0.1)
        if case["model_type"] == "qwen3":
            w[p + "self_attn.q_norm.weight"] = norm(hd)
            w[p + "self_attn.k_norm.weight"] = norm(hd)
        w[p + "post_attention_layernorm.weight"] = norm(H)
        w[p + "mlp.gate_proj.weight"] = linear(I, H)
        w[p + "mlp.up_proj.weight"] = linear(I, H)
        w[p + "mlp.down_proj.weight"] = linear(H, I)
    w["model.norm.weight"] = norm(H)
    if not case["tie_word_embeddings"]:
        w["lm_head.weight"] = normal((V, H), 0.4)
    return w


def tensor_bytes(t):
    """Raw little-endian bytes of a float32/bfloat16/float16 tensor (bf16 via its int16 view)."""
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    assert sys.byteorder == "little"
    return t.numpy().tobytes()


def write_safetensors(path, tensors, dtype_name):
    """8-byte LE header length, JSON header padded with spaces to 8 bytes, then the data."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        data = tensor_bytes(tensors[name])
        header[name] = {"dtype": dtype_name, "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


# ---- the reference forward pass, float64 ----

def rms_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rope_inv_freq(case):
    hd = head_dim_of(case)
    inv_freq = 1.0 / (case["rope_theta"] ** (torch.arange(0, hd, 2, dtype=F64) / hd))
    scaling = case.get("rope_scaling")
    if not scaling:
        return inv_freq
    # transformers modeling_rope_utils._compute_llama3_parameters
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_context_len = scaling["original_max_position_embeddings"]
    low_freq_wavelen, high_freq_wavelen = old_context_len / low, old_context_len / high
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (old_context_len / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, inv_freq_llama)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, positions, inv_freq):
    """x (T, heads, head_dim); angle[t, i] = positions[t] * inv_freq[i], duplicated to head_dim."""
    freqs = torch.tensor(positions, dtype=F64)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]
    return x * cos + rotate_half(x) * sin


def segment_mask(segments, n_tokens):
    """allowed[t, s]: token t may attend to key s (no cache: key space = the tokens)."""
    allowed = torch.zeros((n_tokens, n_tokens), dtype=torch.bool)
    covered = 0
    for start, length, context_len in segments:
        assert start == covered and context_len <= start, "segments must tile the tokens in order"
        for j in range(length):
            allowed[start + j, :context_len] = True
            allowed[start + j, start:start + j + 1] = True
        covered += length
    assert covered == n_tokens
    return allowed


def forward(case, w, ids, positions, segments, logit_rows):
    H, eps = case["hidden_size"], case["rms_norm_eps"]
    nh, nkv, hd = case["num_attention_heads"], case["num_key_value_heads"], head_dim_of(case)
    T = len(ids)
    inv_freq = rope_inv_freq(case)
    allowed = segment_mask(segments, T)
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]
    for i in range(case["num_hidden_layers"]):
        p = f"model.layers.{i}."

        def proj(h, name):
            y = h @ w[p + name + ".weight"].T
            return y + w[p + name + ".bias"] if (p + name + ".bias") in w else y

        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = proj(h, "self_attn.q_proj").view(T, nh, hd)
        k = proj(h, "self_attn.k_proj").view(T, nkv, hd)
        v = proj(h, "self_attn.v_proj").view(T, nkv, hd)
        if case["model_type"] == "qwen3":
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k = apply_rope(q, positions, inv_freq), apply_rope(k, positions, inv_freq)
        k = k.repeat_interleave(nh // nkv, dim=1)  # repeat_kv: head h reads kv head h // group
        v = v.repeat_interleave(nh // nkv, dim=1)
        scores = torch.einsum("thd,shd->hts", q, k) / math.sqrt(hd)
        scores = scores.masked_fill(~allowed[None], float("-inf"))
        attn = torch.einsum("hts,shd->thd", torch.softmax(scores, dim=-1), v).reshape(T, nh * hd)
        x = x + proj(attn, "self_attn.o_proj")
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate, up = proj(h, "mlp.gate_proj"), proj(h, "mlp.up_proj")
        x = x + proj(torch.nn.functional.silu(gate) * up, "mlp.down_proj")
    x = rms_norm(x, w["model.norm.weight"], eps)
    lm_head = w["model.embed_tokens.weight"] if case["tie_word_embeddings"] else w["lm_head.weight"]
    return x[torch.tensor(logit_rows)] @ lm_head.T


def make_probes(vocab_size):
    g = torch.Generator().manual_seed(1234)

    def random_ids(n):
        return torch.randint(0, vocab_size, (n,), generator=g).tolist()

    probes = []
    n = 17  # plain causal prompt, every row
    probes.append(dict(name="causal", ids=random_ids(n), positions=list(range(n)),
                       segments=[[0, n, 0]], logit_rows=list(range(n))))
    n = 300  # long, positions 0, 10, ..., 2990: exercises RoPE far out (and llama3 scaling)
    probes.append(dict(name="long", ids=random_ids(n), positions=[10 * t for t in range(n)],
                       segments=[[0, n, 0]], logit_rows=[0, 1, 2, 150, 297, 298, 299]))
    query_len, item_lens = 20, [3, 7, 5, 4]  # multi-item: query causal, items restart at query_len
    ids, positions, segments, logit_rows = random_ids(query_len), list(range(query_len)), [[0, query_len, 0]], []
    for item_len in item_lens:
        start = len(ids)
        ids += random_ids(item_len)
        positions += list(range(query_len, query_len + item_len))
        segments.append([start, item_len, query_len])
        logit_rows.append(start + item_len - 1)
    probes.append(dict(name="multi_item", ids=ids, positions=positions, segments=segments, logit_rows=logit_rows))
    return probes


def check_multi_item_equivalence(case, weights, probe):
    """The reference's own sanity check: each item's row of the multi-item layout must equal
    the last row of a separate causal prompt [query; item] (RoPE is relative, the mask
    hides the other items)."""
    query_len = probe["segments"][0][1]
    packed = forward(case, weights, probe["ids"], probe["positions"], probe["segments"], probe["logit_rows"])
    for row, (start, length, _) in enumerate(probe["segments"][1:]):
        ids = probe["ids"][:query_len] + probe["ids"][start:start + length]
        alone = forward(case, weights, ids, list(range(len(ids))), [[0, len(ids), 0]], [len(ids) - 1])
        diff = float((alone[0] - packed[row]).abs().max())
        assert diff < 1e-9, f"multi-item row {row} differs from its separate prompt by {diff}"


def write_case(out_dir, arch, dtype_key):
    case = CASES[arch]
    torch_dtype, st_dtype, config_dtype = DTYPES[dtype_key]
    case_dir = os.path.join(out_dir, f"{arch}_{dtype_key}")
    os.makedirs(case_dir, exist_ok=True)
    stored = {name: t.to(torch_dtype) for name, t in random_weights(case).items()}
    write_safetensors(os.path.join(case_dir, "model.safetensors"), stored, st_dtype)
    with open(os.path.join(case_dir, "config.json"), "w") as f:
        json.dump(config_json(case, config_dtype), f, indent=2)
    weights = {name: t.to(F64) for name, t in stored.items()}  # exactly the stored values
    probes = make_probes(case["vocab_size"])
    max_abs = 0.0
    for probe in probes:
        with torch.no_grad():
            logits = forward(case, weights, probe["ids"], probe["positions"], probe["segments"], probe["logit_rows"])
        probe["logits"] = logits.tolist()
        probe["max_abs_logit"] = float(logits.abs().max())
        if probe["name"] == "multi_item":
            check_multi_item_equivalence(case, weights, probe)
        max_abs = max(max_abs, probe["max_abs_logit"])
    golden = {"arch": arch, "dtype": dtype_key, "architecture": case["architecture"],
              "max_abs_logit": max_abs, "tolerance": 1e-4 * max(1.0, max_abs), "probes": probes}
    with open(os.path.join(case_dir, "golden.json"), "w") as f:
        json.dump(golden, f)
    print(f"{case_dir}: {len(stored)} tensors, max |logit| {max_abs:.3f}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_golden.py OUT_DIR")
    torch.set_num_threads(1)
    for arch, dtype_key in CHECKPOINTS:
        write_case(sys.argv[1], arch, dtype_key)


if __name__ == "__main__":
    main()
