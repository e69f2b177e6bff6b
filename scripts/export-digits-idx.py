#!/usr/bin/python3
"""Exports the handwritten digits bundled with Debian's python3-sklearn to MNIST-format IDX files.

The data set is scikit-learn's `load_digits` (UCI "Optical Recognition of Handwritten Digits":
1797 images of 8x8 pixels, values 0..16, ten classes). It ships inside the package, so nothing is
downloaded. dasim-train reads the result with `--mnist-images` / `--mnist-labels`.

Usage: scripts/export-digits-idx.py OUTDIR [--test-fraction F] [--seed S] [--quiet]

Writes, in OUTDIR (created if missing; each file written to a temporary name and renamed):
    digits-train-images.idx  digits-train-labels.idx   (the training split)
    digits-test-images.idx   digits-test-labels.idx    (the held-out split)

Images: IDX magic 0x00000803, dimensions count, 8, 8 (big-endian uint32), then one unsigned byte
per pixel, row-major, the 0..16 value scaled to 0..255 (round(v * 255 / 16)). Labels: magic
0x00000801, the count, one byte per label. The split is deterministic: the samples are put in the
order of a fixed permutation (numpy's legacy RandomState(seed), stable across numpy versions),
the first (1 - F) go to train, the rest to test. The same arguments give the same bytes.

Without python3-sklearn it says so on stderr and exits 2 (scripts/setup.sh does not install it:
`apt-get install python3-sklearn`).
"""

import argparse
import os
import struct
import sys
import tempfile

NAME = "export-digits-idx"


def fail(message, status=2):
    print(f"{NAME}: {message}", file=sys.stderr)
    sys.exit(status)


def load_digits():
    try:
        from sklearn.datasets import load_digits as sklearn_load_digits
    except ImportError:
        fail("python3-sklearn is needed for the bundled digits data set "
             "(apt-get install python3-sklearn); nothing written")
    digits = sklearn_load_digits()
    return digits.images, digits.target


def idx_images(images):
    count, rows, cols = images.shape
    pixels = bytearray()
    for image in images:
        for value in image.reshape(-1):
            if not 0 <= value <= 16:
                fail(f"unexpected pixel value {value} (the digits are 0..16)", status=1)
            pixels.append(int(round(float(value) * 255.0 / 16.0)))
    return struct.pack(">IIII", 0x803, count, rows, cols) + bytes(pixels)


def idx_labels(labels):
    return struct.pack(">II", 0x801, len(labels)) + bytes(int(label) for label in labels)


def write_atomically(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 would hide the data from other users
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def main():
    parser = argparse.ArgumentParser(prog=NAME, description="Export sklearn's bundled 8x8 handwritten "
                                     "digits to MNIST-format IDX files for dasim-train.")
    parser.add_argument("outdir", metavar="OUTDIR")
    parser.add_argument("--test-fraction", type=float, default=1 / 6,
                        help="share of the samples held out as the test split (default 1/6)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split permutation (default 0)")
    parser.add_argument("--quiet", action="store_true", help="do not report the files written")
    args = parser.parse_args()
    if not 0 <= args.test_fraction < 1:
        fail(f"--test-fraction: expected a number in [0, 1), got {args.test_fraction:g}")
    if os.path.exists(args.outdir) and not os.path.isdir(args.outdir):
        fail(f"{args.outdir}: exists and is not a directory")

    images, labels = load_digits()
    import numpy  # a dependency of python3-sklearn, so present when it is

    order = numpy.random.RandomState(args.seed).permutation(len(labels))
    test_count = int(round(len(labels) * args.test_fraction))
    splits = {"train": order[:len(labels) - test_count], "test": order[len(labels) - test_count:]}
    try:
        os.makedirs(args.outdir, exist_ok=True)
        written = []
        for split, indices in splits.items():
            if len(indices) == 0:
                continue
            for kind, data in (("images", idx_images(images[indices])), ("labels", idx_labels(labels[indices]))):
                path = os.path.join(args.outdir, f"digits-{split}-{kind}.idx")
                write_atomically(path, data)
                written.append(path)
    except OSError as error:
        fail(f"{args.outdir}: cannot write: {error.strerror or error}")
    if not args.quiet:
        print(f"{NAME}: {len(splits['train'])} train and {test_count} test images of 8x8 -> "
              + " ".join(written), file=sys.stderr)


if __name__ == "__main__":
    main()
