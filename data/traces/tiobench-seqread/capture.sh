#!/bin/bash
# A tiobench-like sequential read: 1, 2, 4, 8, 16 readers share 1 GiB of
# files (tiobench splits its file size among its threads), page cache dropped
# before each run, each run recorded by `kwb record` into readers-NN/.
# Run as root from the repository: bash data/traces/tiobench-seqread/capture.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/var/tmp/kwb-tiobench}
KWB=${KWB:-kwb}
TOTAL_MB=${TOTAL_MB:-1024}
mkdir -p "$WORK"
for n in 1 2 4 8 16; do
	size=$((TOTAL_MB / n))
	# lay the files out first, outside the measurement
	fio --name=seqread --directory="$WORK" --rw=write --bs=1M --size=${size}M --numjobs=$n \
		--filename_format='seqread.$jobnum' --end_fsync=1 --output=/dev/null
	sync
	echo 3 > /proc/sys/vm/drop_caches
	out=$(printf "%s/readers-%02d" "$HERE" "$n")
	rm -rf "$out"
	mkdir -p "$out"
	$KWB record --out "$out" --interval 1 --name seqread -- \
		fio --name=seqread --directory="$WORK" --rw=read --bs=4k --size=${size}M --numjobs=$n \
		--filename_format='seqread.$jobnum' --ioengine=psync --invalidate=1 \
		--output-format=json --output="$out/fio-seqread"
	gzip -f "$out/fio-seqread"
done
rm -rf "$WORK"
