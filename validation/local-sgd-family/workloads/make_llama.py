#!/usr/bin/python3
"""Writes the Llama-3 10B workload of validation/local-sgd-family/ (INTELLECT-1's model, which dasim has
not built in), with the counting conventions of dasim's own transformer builders
(base/workload/transformers.cpp, layer_builder.cpp) as validation/scaling/workloads/make_bert.py
carries them, whose Builder it reuses:

    make_llama.py --out DIR       write intellect1-llama3-10b-s8192.json
    make_llama.py --print         its totals (parameters, forward FLOPs per sequence)

The model as INTELLECT-1's code defines it (PrimeIntellect-ai/prime, src/zeroband/models/llama/
__init__.py, llama3_configs["10B"]: dim 4096, 42 layers, 32 heads, 8 KV heads, ffn_dim_multiplier
1.3, multiple_of 1024, so the FFN width is 14336; vocabulary 128256, the Llama-3 tokenizer the
report names; configs/10B/H100_intellect1.toml: seq_length 8192). Pre-norm blocks: RMSNorm, fused
QKV projection (grouped-query: 4096 + 2 x 1024 outputs), the attention core, output projection,
residual add, RMSNorm, SwiGLU FFN (w1 and w3: 4096 -> 14336, SiLU(w1 x) * w3 x, w2: 14336 -> 4096),
residual add; final RMSNorm and an untied output projection to the vocabulary.

What differs from dasim's built-in GPT-2 / BERT layers, each as the source runs it:
- No dropout (Llama has none).
- RMSNorm: a scale, no shift (hidden parameters, not 2 x hidden); NORM FLOPs per element as
  layer_builder.cpp's norms (memory-bound either way).
- The attention core is one fused layer, FlashAttention (the code's default `attn_fn = "flash"`),
  causal: the forward runs 2 products over half the s x s blocks (2 x s^2 x d FLOPs in all), the
  backward 5 (S = Q K^T recomputed, dV, dP, dQ, dK: 2.5 x forward), and it reads Q, K, V and writes
  the output, never the s x s scores.
- SwiGLU: the gate's SiLU and the product are one element-wise layer (reads both branches, writes
  one tensor).
- The cross-entropy over the vocabulary is not a layer (dasim's GPT-2 has none either).
- Activation checkpointing: the config's `act_ckpt = true` wraps every transformer block of
  model.layers in checkpoint_wrapper (PrimeIntellect-ai/prime, src/zeroband/utils/activation_ckpt.py,
  apply_ac_ckpt), so each block is a layer "block" ("layers.N") and the workload asks for
  `"activation_checkpointing": "blocks"`: each block's forward runs again before its backward.
Left out here: gradient accumulation (128 sequences per node as micro-batches of 1 per GPU: dasim
runs the 16 sequences of a GPU's step as one batch, the same FLOPs).
"""

import argparse
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "make_bert", os.path.join(HERE, "..", "..", "scaling", "workloads", "make_bert.py"))
make_bert = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_bert)

NAME = "intellect1-llama3-10b-s8192"
DIM, LAYERS, HEADS, KV_HEADS, FFN, VOCAB, SEQ = 4096, 42, 32, 8, 14336, 128256, 8192
PRECISION = "amp_bf16"


class LlamaBuilder(make_bert.Builder):
    def rms_norm(self, name):
        e = self.seq * self.hidden
        self.add(name, "norm", make_bert.NORM * e, 2 * make_bert.NORM * e, 2 * e, self.hidden)

    def residual_add(self, name):
        e = self.seq * self.hidden
        self.add(name, "elementwise", make_bert.ADD * e, make_bert.ADD * e, 3 * e)

    def flash_attention(self, name, kv_dim):
        s, d = float(self.seq), float(self.hidden)
        forward = 2 * s * s * d  # Q K^T and P V, 2 s^2 d FLOPs each, over half the blocks (causal)
        self.add(name, "attention", forward, 2.5 * forward, s * (d + 2 * kv_dim) + s * d)

    def swiglu(self, name, width):
        e = self.seq * width
        self.add(name, "elementwise", (make_bert.ACTIVATION + 1) * e, (make_bert.ACTIVATION + 1) * e, 3 * e)


def llama(precision=PRECISION, seq=SEQ):
    kv_dim = DIM // HEADS * KV_HEADS
    b = LlamaBuilder(precision, seq, DIM)
    b.embedding("tok_embeddings", [VOCAB])
    for i in range(LAYERS):
        p = f"layers.{i}."
        b.begin_block(p[:-1])
        b.rms_norm(p + "attention_norm")
        b.linear(p + "attention.wqkv", DIM, DIM + 2 * kv_dim, False)
        b.flash_attention(p + "attention.core", kv_dim)
        b.linear(p + "attention.wo", DIM, DIM, False)
        b.residual_add(p + "attention.add")
        b.rms_norm(p + "ffn_norm")
        b.linear(p + "feed_forward.w1", DIM, FFN, False)
        b.linear(p + "feed_forward.w3", DIM, FFN, False)
        b.swiglu(p + "feed_forward.silu_mul", FFN)
        b.linear(p + "feed_forward.w2", FFN, DIM, False)
        b.residual_add(p + "feed_forward.add")
    b.end_block()
    b.rms_norm("norm")
    b.linear("output", DIM, VOCAB, False)
    return b.layers


def workload():
    return {"name": NAME, "precision": PRECISION, "sample_name": "sequence", "sequence_length": SEQ,
            "optimizer": "adam",
            "activation_checkpointing": "blocks",
            "source": "validation/local-sgd-family/workloads/make_llama.py (INTELLECT-1's Llama-3 10B, "
                      "PrimeIntellect-ai/prime llama3_configs['10B'], dasim's layer conventions)",
            "layers": llama()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder to write the workload file to")
    parser.add_argument("--print", action="store_true", help="print the totals")
    args = parser.parse_args()
    w = workload()
    if args.print:
        params = sum(layer["params"] for layer in w["layers"])
        forward = sum(layer["forward_flops"] for layer in w["layers"])
        print(f"{NAME}: {len(w['layers'])} layers, {params:,} parameters, {forward:.4g} forward FLOPs per sequence")
    if args.out:
        with open(os.path.join(args.out, NAME + ".json"), "w") as f:
            json.dump(w, f, indent=1)
            f.write("\n")
