#!/bin/bash
# Memory pressure under `kwb record`: see pressure.py.  Run as root:
#   bash data/traces/memory-pressure/capture.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/var/tmp/kwb-pressure}
KWB=${KWB:-kwb}
FILE_MB=${FILE_MB:-6144}
HEADROOM_MB=${HEADROOM_MB:-1536}
mkdir -p "$WORK"
dd if=/dev/urandom of="$WORK/big" bs=1M count="$FILE_MB" status=none
sync
echo 3 > /proc/sys/vm/drop_caches
rm -rf "$HERE/bundle"
$KWB record --out "$HERE/bundle" --interval 1 --name pressure -- \
	python3 "$HERE/pressure.py" "$HEADROOM_MB" "$WORK/big" 2
rm -rf "$WORK"
