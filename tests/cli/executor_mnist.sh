#!/usr/bin/env bash
# dasim-train on MNIST IDX files: the test writes a tiny IDX pair (two classes of 4x4 images, a
# bright left or right half plus noise) and checks that 2 ranks read it, shard it and learn it.
set -euo pipefail
source "$2/tests/executor/cli_helpers.bash"

"$PY" - "$WORK/images.idx" "$WORK/labels.idx" <<'PY'
import random, struct, sys
random.seed(3)
n, rows, cols = 200, 4, 4
images, labels = bytearray(), bytearray()
for i in range(n):
    label = i % 2
    for r in range(rows):
        for c in range(cols):
            bright = (c < cols // 2) == (label == 0)
            images.append(min(255, (200 if bright else 30) + random.randint(0, 40)))
    labels.append(label)
open(sys.argv[1], "wb").write(struct.pack(">IIII", 0x803, n, rows, cols) + images)
open(sys.argv[2], "wb").write(struct.pack(">II", 0x801, n) + labels)
PY
mpi2 --mnist-images "$WORK/images.idx" --mnist-labels "$WORK/labels.idx" --hidden 8 --batch 10 --lr 0.5 \
  --steps 60 --target-loss 0.1 --verify --quiet -o "$WORK/mnist.json" || fail "MNIST IDX run failed"
[ "$(json "$WORK/mnist.json" "d['config']['layer_widths']")" = "[16, 8, 2]" ] || fail "widths from IDX header"
[ "$(json "$WORK/mnist.json" "d['verify']['passed']")" = True ] || fail "IDX shards differ from reference"
[ "$(json "$WORK/mnist.json" "d['target']['reached']")" = True ] || fail "tiny IDX task not learned"
echo "executor_mnist: ok"
