#!/usr/bin/python3
"""Writes the BERT workload files of validation/scaling/ (BERT-base and BERT-large pre-training with
their heads, which dasim has not built in), following the counting conventions of dasim's own BERT-large builder
(base/workload/transformers.cpp, layer_builder.cpp: SequenceBuilder) line for line.

    make_bert.py --out DIR                write bert-base-pretrain-s128-{fp32,amp}.json and the
                                          BERT-large files bert-large-pretrain-s{128,512}-*.json and
                                          bert-large-pretrain-s512-bin64-*.json (phase 2 in length bins)
    make_bert.py --check DASIM            the same code with BERT-large's sizes and no heads must give
                                          `DASIM workload show bert-large --format json`'s layers

--check is what makes these files trustworthy: if the builder's conventions change, it fails
(tests/cli/validation_scaling.sh runs it), and the files are written again with --out.

BERT-base (Devlin et al. 2019, table of model sizes): 12 layers, hidden 768, 12 heads, FFN 3072;
bert-base-uncased vocabulary 30522, 512 positions, 2 token types (HuggingFace config). Unlike the
built-in bert-large, the files include the pre-training heads of NVIDIA DeepLearningExamples'
BertForPreTraining (PyTorch/LanguageModeling/BERT/modeling.py @ 26c26761, the code DLPerf ran): the
MLM head (dense + GELU + LayerNorm, then a decoder GEMM over every position whose weight is the
tied word embedding, plus its own bias), the NSP linear on the pooled token, and the criterion's
log-softmax over every position's logits.
"""

import argparse
import json
import os
import subprocess
import sys

NORM, ACTIVATION, SOFTMAX, ADD = 8, 8, 5, 1  # FLOPs per element, as layer_builder.cpp
ELEMENT_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "amp": 2, "amp_bf16": 2}


class Builder:
    """SequenceBuilder of layer_builder.cpp."""

    def __init__(self, precision, seq, hidden):
        self.bytes, self.seq, self.hidden, self.layers = ELEMENT_BYTES[precision], seq, hidden, []
        self.block = None  # the open block (begin_block / end_block), as the layers' "block"

    def begin_block(self, name):
        self.block = name

    def end_block(self):
        self.block = None

    def push(self, layer):
        if self.block is not None:
            layer["block"] = self.block
        self.layers.append(layer)

    def add(self, name, kind, forward, backward, touched, params=0, **extra):
        layer = {"name": name, "kind": kind, "params": params, "forward_flops": float(forward),
                 "backward_flops": float(backward), "activation_bytes": float(touched * self.bytes)}
        layer.update(extra)
        self.push(layer)

    def embedding(self, name, rows):
        tokens = self.seq * self.hidden
        self.add(name, "embedding", (len(rows) - 1) * tokens, len(rows) * tokens, (len(rows) + 1) * tokens,
                 sum(rows) * self.hidden)

    def linear(self, name, n_in, n_out, bias, rows=None, params=None):
        r = self.seq if rows is None else rows
        forward = 2.0 * r * n_in * n_out
        counted = n_in * n_out + (n_out if bias else 0) if params is None else params
        self.add(name, "linear", forward, 2 * forward, r * (n_in + n_out), counted,
                 gemm={"rows_per_sample": r, "n": n_out, "k": n_in})

    def attention(self, name, heads):
        s, d = float(self.seq), float(self.hidden)
        scores, product = heads * s * s, 2 * s * s * d
        self.add(name + ".scores", "attention", product, 2 * product, 2 * s * d + scores)
        self.add(name + ".scale_mask", "elementwise", 2 * scores, scores, 4 * scores,
                 backward_activation_bytes=float(2 * scores * self.bytes))
        self.add(name + ".softmax", "elementwise", SOFTMAX * scores, SOFTMAX * scores, 2 * scores)
        self.dropout(name + ".dropout", scores)
        self.add(name + ".context", "attention", product, 2 * product, scores + 2 * s * d)

    def dropout(self, name, elements=None):
        e = self.seq * self.hidden if elements is None else elements
        moved = float(e * (2 * self.bytes + 1))
        self.push({"name": name, "kind": "elementwise", "params": 0, "forward_flops": 0.0,
                   "backward_flops": 0.0, "activation_bytes": moved, "backward_activation_bytes": moved})

    def layer_norm(self, name, with_add, rows=None):
        e = (self.seq if rows is None else rows) * self.hidden
        per = NORM + (ADD if with_add else 0)
        self.add(name, "norm", per * e, 2 * per * e, (3 if with_add else 2) * e, 2 * self.hidden)

    def activation(self, name, width, rows=None):
        e = (self.seq if rows is None else rows) * width
        self.add(name, "elementwise", ACTIVATION * e, ACTIVATION * e, 2 * e)


def bert(precision, seq, layers, hidden, heads, ffn, vocab, heads_on, masked_rows=None):
    """masked_rows: the MLM head's rows per sequence, every position (None) or only the masked ones."""
    b = Builder(precision, seq, hidden)
    b.embedding("embeddings", [vocab, 512, 2])
    b.layer_norm("embeddings.LayerNorm", False)
    b.dropout("embeddings.dropout")
    for i in range(layers):
        p = f"encoder.layer.{i}."
        b.begin_block(p[:-1])
        for projection in ("query", "key", "value"):
            b.linear(p + "attention." + projection, hidden, hidden, True)
        b.attention(p + "attention.core", heads)
        b.linear(p + "attention.output.dense", hidden, hidden, True)
        b.dropout(p + "attention.output.dropout")
        b.layer_norm(p + "attention.output.LayerNorm", True)
        b.linear(p + "intermediate.dense", hidden, ffn, True)
        b.activation(p + "intermediate.gelu", ffn)
        b.linear(p + "output.dense", ffn, hidden, True)
        b.dropout(p + "output.dropout")
        b.layer_norm(p + "output.LayerNorm", True)
    b.end_block()
    b.linear("pooler.dense", hidden, hidden, True, rows=1)
    b.activation("pooler.tanh", hidden, rows=1)
    if heads_on:
        rows = seq if masked_rows is None else masked_rows
        b.linear("cls.predictions.transform.dense", hidden, hidden, True, rows=rows)
        b.activation("cls.predictions.transform.gelu", hidden, rows=rows)
        b.layer_norm("cls.predictions.transform.LayerNorm", False, rows=rows)
        # Decoder weight tied to the word embedding (counted there); its own bias is counted here.
        b.linear("cls.predictions.decoder", hidden, vocab, False, rows=rows, params=vocab)
        b.linear("cls.seq_relationship", hidden, 2, True, rows=1)
        # The criterion (run_pretraining.py @ 26c26761, BertPretrainingCriterion):
        # CrossEntropyLoss(ignore_index=-1) over prediction_scores.view(-1, vocab) takes the
        # log-softmax of every position's logits, masked or not. Forward reads the logits and writes
        # the log-probabilities; backward writes nll_loss's zero-filled gradient, then log-softmax's
        # reads it and the log-probabilities and writes the logits' gradient: 4 passes. The NSP
        # loss over 2 logits per sequence is left out (under 0.01% of these bytes).
        logits = rows * vocab
        b.add("cls.criterion.log_softmax", "elementwise", SOFTMAX * logits, SOFTMAX * logits, 2 * logits,
              backward_activation_bytes=float(4 * logits * b.bytes))
    return b.layers


def check(dasim):
    """Exit 1 unless BERT-large built here equals dasim's built-in, layer by layer, in both precisions."""
    for precision in ("fp32", "amp"):
        shown = subprocess.run([dasim, "workload", "show", "bert-large", "--precision", precision, "--seq-len", "128",
                                "--format", "json"], stdout=subprocess.PIPE, text=True, check=True)
        theirs = json.loads(shown.stdout)["layers"]
        ours = bert(precision, 128, 24, 1024, 16, 4096, 30522, heads_on=False)
        if len(theirs) != len(ours):
            sys.exit(f"make_bert.py: {len(ours)} layers, dasim's bert-large has {len(theirs)}")
        for a, b in zip(ours, theirs):
            same = a.keys() == b.keys() and all(
                abs(a[k] - b[k]) <= 1e-9 * abs(b[k]) if isinstance(b[k], float) else a[k] == b[k] for k in a)
            if not same:
                sys.exit(f"make_bert.py: layer {b['name']} ({precision}) differs from dasim's: {a} vs {b}")
    print("make_bert.py: BERT-large built here equals dasim's built-in (fp32 and amp)")


def write_workload(directory, name, precision, seq, source, layers):
    workload = {"name": name, "precision": precision, "sample_name": "sequence", "sequence_length": seq,
                "source": source, "layers": layers}
    with open(os.path.join(directory, name + ".json"), "w") as f:
        json.dump(workload, f, indent=1)
        f.write("\n")


def bin_shapes(lengths_file, bin_size, alignment):
    """LDDL's binned phase 2 (lddl/torch/bert.py @ a07d20a1, BertPretrainBinned): bin i holds the
    sequences of (i - 1) x bin_size + 1 .. i x bin_size tokens; each micro-batch is drawn from one
    bin, chosen with weight = the bin's samples left (so a bin's share of the micro-batches is its
    share of the sequences), the same bin on every rank, and padded to its longest sequence rounded
    up to `alignment`. Each shape is a bin at its top length: a micro-batch of 16 (32) sequences,
    rounded up to 8, reaches within 2.0 (0.4) tokens of the top on average in every bin (the counts'
    order statistics).
    Returns [(share, padded length, mean real length)]."""
    with open(lengths_file) as f:
        counts = json.load(f)["counts"]
    total = sum(counts)
    shapes = []
    for top in range(bin_size, len(counts) + 1, bin_size):
        in_bin = counts[top - bin_size:top]
        tokens = sum((top - bin_size + 1 + i) * c for i, c in enumerate(in_bin))
        padded = -(-top // alignment) * alignment
        shapes.append((sum(in_bin) / total, padded, tokens / sum(in_bin)))
    return shapes


def masked_positions(tokens, cap):
    """create_pretraining_data's count of masked positions: 15% of the tokens, rounded, at least 1,
    at most max_predictions_per_seq (LDDL's create_masked_lm_predictions keeps the rule)."""
    return min(cap, max(1, int(round(tokens * 0.15))))


def shaped_layers(per_shape):
    """One layer list from the same model built at several lengths: a layer equal in every shape
    stays as it is; one that differs carries its figures per shape ("shapes", dasim's workload
    format), in the order of the workload's "shapes"."""
    figures = ("forward_flops", "backward_flops", "activation_bytes", "backward_activation_bytes", "gemm")
    merged = []
    for versions in zip(*per_shape):
        first = versions[0]
        if all(v == first for v in versions):
            merged.append(first)
            continue
        layer = {k: v for k, v in first.items() if k not in figures}
        layer["shapes"] = [{k: v[k] for k in figures if k in v} for v in versions]
        block = layer.pop("block", None)
        if block is not None:
            layer["block"] = block
        merged.append(layer)
    return merged


def write_binned(directory, precision, lengths_file):
    """BERT-large phase 2 as scripts/run_pretraining.sh @ a07d20a1 reads it: bin size 64 (its
    phase2_bin_size default), LDDL's sequence_length_alignment of 8, 80 masked positions at most."""
    shapes = bin_shapes(lengths_file, 64, 8)
    per_shape = [bert(precision, padded, 24, 1024, 16, 4096, 30528, heads_on=True,
                      masked_rows=masked_positions(mean_tokens, 80)) for _, padded, mean_tokens in shapes]
    name = f"bert-large-pretrain-s512-bin64-{precision}"
    workload = {"name": name, "precision": precision, "sample_name": "sequence", "sequence_length": 512,
                "source": "validation/scaling/workloads/make_bert.py (BERT-large with the pre-training heads, "
                          "phase 2 in LDDL's 64-token length bins of Wikipedia, wikipedia-s512-lengths.json)",
                "shapes": [{"share": share, "sequence_length": padded} for share, padded, _ in shapes],
                "layers": shaped_layers(per_shape)}
    with open(os.path.join(directory, name + ".json"), "w") as f:
        json.dump(workload, f, indent=1)
        f.write("\n")


def write(directory):
    for precision in ("fp32", "amp"):
        write_workload(directory, f"bert-base-pretrain-s128-{precision}", precision, 128,
                       "validation/scaling/workloads/make_bert.py (BERT-base with the pre-training heads, "
                       "dasim's layer conventions)",
                       bert(precision, 128, 12, 768, 12, 3072, 30522, heads_on=True))
    # BERT-large as DeepLearningExamples' PyTorch BERT ran it in NGC 21.11 (@ a07d20a1):
    # bert_configs/large.json's vocabulary of 30522, which run_pretraining.py pads to a multiple of
    # 8 (30528); dense sequence output is the default (--no_dense_sequence_output not passed), so
    # the MLM head and its criterion take only the masked positions, at most
    # max_predictions_per_seq of them (scripts/run_pretraining.sh: 20 at 128, 80 at 512), counted
    # here as that many (masking 15% of a full sequence gives 19 and 77).
    for precision, seq, masked in (("amp", 128, 20), ("tf32", 128, 20), ("amp", 512, 80), ("tf32", 512, 80)):
        write_workload(directory, f"bert-large-pretrain-s{seq}-{precision}", precision, seq,
                       "validation/scaling/workloads/make_bert.py (BERT-large with the pre-training heads over "
                       f"{masked} masked positions per sequence, dasim's layer conventions)",
                       bert(precision, seq, 24, 1024, 16, 4096, 30528, heads_on=True, masked_rows=masked))
    # Phase 2 as its runs read it: micro-batches of one length bin each (write_binned).
    for precision in ("amp", "tf32"):
        write_binned(directory, precision, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                        "wikipedia-s512-lengths.json"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder to write the workload files to")
    parser.add_argument("--check", metavar="DASIM", help="compare BERT-large built here with DASIM's")
    args = parser.parse_args()
    if args.check:
        check(args.check)
    if args.out:
        write(args.out)
