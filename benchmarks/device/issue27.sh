#!/usr/bin/env bash
# Issue 27: the GPU paths measured on a lent accelerator, in two ranked calls of the device
# tool. Each call keeps to its own time budget (BUDGET_S, 270 s): a run that would not fit in
# what is left is skipped and says so. Figures land in $OUT as one JSON line per run.
#
# 0. Here, once (copies the real abstracts into the ignored, carried folder .device-carry/):
#      bash benchmarks/device/issue27.sh prepare            # from ../shared/data/pubmed_xml
#      bash benchmarks/device/issue27.sh prepare DIR        # or from DIR
# 1. The build's embed stage (indexing.gpu_embed; MiniLM-L6 and BERT-base shapes, bf16 then
#    fp16, batches of 512 length-sorted, tokenizer processes) -- the most important row:
#      run(command="bash benchmarks/device/issue27.sh embed", carry=[".device-carry"], timeout_s=360)
# 2. Both training loops (training.gpu_train; BERT-base then MiniLM-L6 shapes, batch 256, bf16):
#      run(command="bash benchmarks/device/issue27.sh train", carry=[".device-carry"], timeout_s=360)
#    then give_back. Commit $OUT's files under benchmarks/results/DATE/issue27/.
# 3. `biorag train`'s own loops (benchmarks.train_loop_rate: main-thread tokenization, checkpoints,
#    the settings tree from carried wheels), MiniLM-L6 then BERT-base shapes, batch 256:
#      run(command="bash benchmarks/device/issue27.sh real", carry=[".device-carry"], timeout_s=240)
#
# REAL_ARCHS picks the shapes of step 3 (default "minilm-l6 bert-base").
# EMBED_RUNS / TRAIN_RUNS pick runs (e.g. EMBED_RUNS="minilm-l6:bfloat16" TRAIN_RUNS="contrastive:minilm-l6"),
# PROFILE=1 adds op tables of 5 end-to-end and 5 raw training steps ($OUT/profile_LOOP_ARCH.txt).
# EMBED_WORKERS / TRAIN_WORKERS the tokenizer processes (default: all cores but one / but four).
# CPU dry run (tiny shapes and sizes, same entry points): DRY_RUN=1 bash benchmarks/device/issue27.sh embed|train
# (benchmarks/results/2026-11-26/issue27-dry-run/ holds one). PYTHON picks the interpreter (python3).
set -uo pipefail
cd "$(dirname "$0")/../.."

CARRY=.device-carry
DATA=${DATA:-$CARRY/pubmed_xml}
WHEELS=$CARRY/wheels
TOK=benchmarks/device/minilm_tokenizer
PY=${PYTHON:-python3}
OUT=${OUT:-/tmp/issue27_out}
BUDGET_S=${BUDGET_S:-270}
DRY_RUN=${DRY_RUN:-0}
# which runs, in order (arch:dtype and loop:arch), and the tokenizer processes: the GPU's own
# process mostly waits on the GPU, so all but one core tokenize (on the lent 16-core machines)
ALL_EMBED="minilm-l6:bfloat16 bert-base:bfloat16 minilm-l6:float16 bert-base:float16"
EMBED_RUNS=${EMBED_RUNS:-$ALL_EMBED}
TRAIN_RUNS=${TRAIN_RUNS:-"contrastive:bert-base mesh-lora:bert-base contrastive:minilm-l6 mesh-lora:minilm-l6"}
REAL_ARCHS=${REAL_ARCHS:-"minilm-l6 bert-base"}
EMBED_WORKERS=${EMBED_WORKERS:-$(( $(nproc) > 2 ? $(nproc) - 1 : 1 ))}
TRAIN_WORKERS=${TRAIN_WORKERS:-$(( $(nproc) > 4 ? $(nproc) - 4 : 1 ))}
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
START=$(date +%s)

prepare() {
  local src=${1:-../shared/data/pubmed_xml}
  [ -d "$src" ] || { echo "error: $src: no such folder (give the pubmed_xml folder of shared/data)" >&2; exit 2; }
  rm -rf "$DATA" && mkdir -p "$DATA"
  local f n=0
  while IFS= read -r f; do  # flat, and names the device tool accepts
    cp "$f" "$DATA/$(basename "$f" | tr -c 'A-Za-z0-9._\n-' '_')"; n=$((n + 1))
  done < <(find "$src" -name '*.xml.gz' | sort)
  cp "$src/PROVENANCE.md" "$DATA/" 2>/dev/null || true
  # for `real`: the settings tree's packages (absent there) as CPython 3.12 x86-64 wheels, the
  # versions installed here
  local here=${PYTHON:-$([ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)} pins
  pins=$("$here" -c 'import importlib.metadata as m; print(" ".join(f"{d}=={m.version(d)}" for d in ("pydantic", "pydantic-core", "pydantic-settings", "python-dotenv", "annotated-types", "typing-inspection", "typing-extensions")))') \
    && rm -rf "$WHEELS" && "$here" -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
      --abi cp312 --abi none --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 -d "$WHEELS" $pins \
    || echo "warning: no wheels in $WHEELS ($here has no pydantic, or pip download failed): 'real' cannot run there" >&2
  local tree carry
  tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
  carry=$(du -sb "$CARRY" | cut -f1)
  echo "prepared $n XML files in $DATA: $((carry / 1048576)) MiB carried + $((tree / 1048576)) MiB in the working tree (limit 64 MiB in all)"
  [ $((tree + carry)) -lt $((62 * 1048576)) ] || { echo "error: the tree and the carried folder exceed 62 MiB: carry fewer XML files" >&2; exit 1; }
}

machine() {
  {
    echo "date: $(date -u +%FT%TZ)"; echo "host cores: $(nproc); $(uname -m)"
    nvidia-smi -L 2>/dev/null || echo "nvidia-smi: none (no GPU)"
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null
    "$PY" -c 'import torch, transformers, peft; print("python", __import__("sys").version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__, "peft", peft.__version__); print("device:", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu")'
    echo "corpus: $(ls "$DATA"/*.xml.gz 2>/dev/null | wc -l) XML files in $DATA; dry run: $DRY_RUN; budget ${BUDGET_S}s"
  } 2>&1 | tee "$OUT/machine_$CALL.txt"
}

# one_run LABEL NEEDS_S MODULE ARGS...: runs when NEEDS_S seconds are left, appends {"run": LABEL, ...} to $JSONL
one_run() {
  local label=$1 needs=$2; shift 2
  local left=$((BUDGET_S - ($(date +%s) - START)))
  if [ "$left" -lt "$needs" ]; then
    echo "== $label: skipped, ${left}s left of the budget and it needs ~${needs}s" | tee -a "$LOG"; return
  fi
  echo "== $label ($(date -u +%T), ${left}s left): $PY -m $*" | tee -a "$LOG"
  local line rc
  line=$(timeout -k 10 "$left" "$PY" -m "$@" --json 2>>"$LOG" | tail -1); rc=$?
  if [ $rc -eq 0 ] && [ "${line:0:1}" = "{" ]; then
    echo "{\"run\": \"$label\", ${line:1}" | tee -a "$JSONL"
  else
    echo "== $label: failed (exit $rc), see $LOG" | tee -a "$LOG"
  fi
}

embed() {
  local common=(--input "$DATA" --tokenizer "$TOK" --workers "$EMBED_WORKERS" --batch-size 512 --min-seconds 30)
  local need=60
  if [ "$DRY_RUN" = 1 ]; then
    common=(--input "$DATA" --tokenizer "$TOK" --workers 2 --batch-size 32 --min-seconds 1
            --raw-sample 64 --device cpu)
    need=5
  fi
  local arch dtype tag=""
  [ "$DRY_RUN" = 1 ] && tag=" (dry run: tiny)"
  for run in $EMBED_RUNS; do
    arch=${run%%:*}; dtype=${run##*:}
    one_run "embed $arch $dtype$tag" $need indexing.gpu_embed --arch "$([ "$DRY_RUN" = 1 ] && echo tiny || echo "$arch")" --dtype "$dtype" "${common[@]}"
  done
  # what the remaining time allows: larger batches for the small model
  [ "$DRY_RUN" = 1 ] || [ "$EMBED_RUNS" != "$ALL_EMBED" ] || one_run "embed minilm-l6 bfloat16 batch 1024" $need indexing.gpu_embed --arch minilm-l6 \
    --dtype bfloat16 "${common[@]}" --batch-size 1024
}

train() {
  local common=(--input "$DATA" --tokenizer "$TOK" --workers "$TRAIN_WORKERS" --batch-size 256 --warmup 10 --steps 40)
  local need=70 small=50
  if [ "$DRY_RUN" = 1 ]; then
    common=(--input "$DATA" --tokenizer "$TOK" --workers 2 --batch-size 8 --warmup 1 --steps 3 --max-records 64
            --device cpu)
    need=5 small=5
  fi
  local tag=""
  [ "$DRY_RUN" = 1 ] && tag=" (dry run: tiny)"
  local run loop arch
  for run in $TRAIN_RUNS; do
    loop=${run%%:*}; arch=${run##*:}
    one_run "$loop $arch$tag" "$([ "$arch" = bert-base ] && echo $need || echo $small)" training.gpu_train "$loop" \
      --arch "$([ "$DRY_RUN" = 1 ] && echo tiny || echo "$arch")" "${common[@]}" \
      ${PROFILE:+--profile-out "$OUT/profile_${loop}_${arch}.txt"}
  done
}

real() {
  # `biorag train`'s own loops (benchmarks.train_loop_rate): they need the settings tree
  if ! "$PY" -c 'import pydantic_settings' 2>/dev/null; then
    local deps=/tmp/issue27_pydeps
    "$PY" -c 'import sys, zipfile, glob; [zipfile.ZipFile(w).extractall(sys.argv[2]) for w in glob.glob(sys.argv[1] + "/*.whl")]' \
      "$WHEELS" "$deps" && export PYTHONPATH="$deps${PYTHONPATH:+:$PYTHONPATH}"
    "$PY" -c 'import pydantic_settings' 2>>"$LOG" || { echo "== real: no pydantic (wheels in $WHEELS?), see $LOG" | tee -a "$LOG"; return; }
  fi
  local common=(--input "$DATA" --tokenizer "$TOK" --batch-size 256 --work /tmp/issue27_real)
  local need=90 small=60 tag=""
  if [ "$DRY_RUN" = 1 ]; then
    common=(--input "$DATA" --tokenizer "$TOK" --batch-size 8 --pairs 48 --examples 48 --device cpu --work "$OUT/real_work")
    need=5 small=5 tag=" (dry run: tiny)"
  fi
  local arch
  for arch in $REAL_ARCHS; do
    one_run "biorag train loops $arch$tag" "$([ "$arch" = bert-base ] && echo $need || echo $small)" benchmarks.train_loop_rate \
      --arch "$([ "$DRY_RUN" = 1 ] && echo tiny || echo "$arch")" "${common[@]}"
  done
  [ "$DRY_RUN" = 1 ] && rm -rf "$OUT/real_work"
}

case "${1:-}" in
  prepare) prepare "${2:-}"; exit ;;
  embed|train|real)
    CALL=$1; mkdir -p "$OUT"; JSONL=$OUT/issue27_$1.jsonl LOG=$OUT/issue27_$1.log; : >"$JSONL"; : >"$LOG"
    [ -d "$DATA" ] || { echo "error: $DATA is missing: run 'bash benchmarks/device/issue27.sh prepare' here and carry $CARRY" >&2; exit 2; }
    machine; "$1"
    echo "done in $(($(date +%s) - START))s; $(wc -l <"$JSONL") run(s) in $JSONL" | tee -a "$LOG" ;;
  *) echo "usage: bash benchmarks/device/issue27.sh prepare [DIR] | embed | train | real" >&2; exit 2 ;;
esac
