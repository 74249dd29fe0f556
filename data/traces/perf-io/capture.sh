#!/bin/bash
# `perf record -g -a` of an I/O-heavy run (buffered random reads and writes
# with fio, two jobs, 8 s) under `kwb record --perf-record`; the perf script
# text is then cut to its first CUT_MB (whole samples only).  Run as root:
#   bash data/traces/perf-io/capture.sh              -> bundle/ (buffered I/O)
#   DIRECT=1 bash data/traces/perf-io/capture.sh     -> bundle-direct/ (O_DIRECT, the same job)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/var/tmp/kwb-perf-io}
KWB=${KWB:-kwb}
CUT_MB=${CUT_MB:-3}
DIRECT=${DIRECT:-0}
OUT="$HERE/bundle"
[ "$DIRECT" = 1 ] && OUT="$HERE/bundle-direct"
mkdir -p "$WORK"
rm -rf "$OUT"
$KWB record --out "$OUT" --interval 1 --perf-record --name randrw -- \
	fio --name=randrw --directory="$WORK" --rw=randrw --bs=4k --size=1G --numjobs=2 \
	--runtime=8 --time_based --ioengine=psync --fsync=64 --direct="$DIRECT" \
	--output-format=json --output="$OUT/fio-randrw"
gzip -f "$OUT/fio-randrw"
# keep the first CUT_MB of perf script output, ending on a blank line (a whole sample)
python3 - "$OUT/perf-script-randrw.gz" "$CUT_MB" <<'PY'
import gzip, sys
path, mb = sys.argv[1], float(sys.argv[2])
text = gzip.open(path, "rt", errors="replace").read()
full = len(text)
cut = int(mb * 1024 * 1024)
if full > cut:
    end = text.rfind("\n\n", 0, cut)
    text = text[:end + 2]
with gzip.open(path, "wt") as f:
    f.write(text)
print(f"perf script: {full} bytes, kept {len(text)}")
PY
rm -rf "$WORK"
