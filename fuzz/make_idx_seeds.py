#!/usr/bin/env python3
"""Writes the seeds of fuzz_idx (fuzz/fuzz_idx.cpp) into fuzz/seeds/idx/: small valid IDX pairs
(images: magic 0x803, N x rows x cols uint8; labels: magic 0x801, N uint8) in the fuzz target's
input layout: one shard byte, the images file's length (uint16, little-endian), the images file,
the labels file."""
import os
import random
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "idx")


def seed(name, n, rows, cols, classes, shard_byte):
    rng = random.Random(name)
    images = struct.pack(">IIII", 0x803, n, rows, cols) + bytes(rng.randrange(256) for _ in range(n * rows * cols))
    labels = struct.pack(">II", 0x801, n) + bytes(i % classes for i in range(n))
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(bytes([shard_byte]) + struct.pack("<H", len(images)) + images + labels)


os.makedirs(HERE, exist_ok=True)
seed("tiny-3x2x2.bin", 3, 2, 2, 10, 0)  # 3 images of 2x2, labels 0..2, one rank
seed("shard-4x3x3.bin", 4, 3, 3, 2, 1 + 4 * 1)  # rank 1 of 2
seed("shard-6x4x4.bin", 6, 4, 4, 3, 2 + 4 * 2)  # rank 2 of 3
seed("mnist-2x28x28.bin", 2, 28, 28, 2, 0)  # MNIST's image size
