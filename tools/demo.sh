#!/usr/bin/env bash
# make demo: the main job on the bundled default.
# Until the bundled labeler (models/) exists, this runs the best real thing available: it
# writes a small random Qwen3 checkpoint and prints its logits with `sift logits`.
set -euo pipefail
cd "$(dirname "$0")/.."
sift=build/sift
demo_dir=build/demo
echo "demo: no bundled labeler yet; checking the forward pass on a small random Qwen3 checkpoint instead"
"$sift" make-checkpoint --out "$demo_dir/qwen3-tiny" --arch qwen3 --preset tiny --seed 1 >/dev/null
"$sift" logits --model "$demo_dir/qwen3-tiny" --ids 1,2,3,4,5 --vocab 10,20
