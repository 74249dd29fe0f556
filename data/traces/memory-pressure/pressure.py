"""Memory pressure that makes kswapd scan: pin most of the free memory, then stream a file.

    python3 pressure.py HEADROOM_MB FILE [PASSES]

Allocates anonymous memory until only HEADROOM_MB of MemAvailable is left
(touching every page so it is really used; there is no swap, so it stays),
then reads FILE sequentially PASSES times (default 2).  The page cache of
FILE has to be recycled inside the headroom, so the free pages fall to the
low watermark and kswapd reclaims: /proc/vmstat's pgscan_kswapd and
pgsteal_kswapd move.  No cgroup is needed (this machine has cgroup v1 only,
and a memcg limit reclaims as "direct" reclaim inside the cgroup, which the
global /proc/vmstat does not count).
"""

import mmap
import sys
import time


def mem_available_kb() -> int:
    for ln in open("/proc/meminfo"):
        if ln.startswith("MemAvailable:"):
            return int(ln.split()[1])
    raise SystemExit("no MemAvailable in /proc/meminfo")


def main() -> int:
    headroom = int(sys.argv[1]) * 1024 * 1024
    path = sys.argv[2]
    passes = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    target = mem_available_kb() * 1024 - headroom
    if target <= 0:
        raise SystemExit("not enough free memory for that headroom")
    m = mmap.mmap(-1, target, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    chunk = b"\x01" * (1 << 20)
    t0 = time.time()
    for off in range(0, target - len(chunk), len(chunk)):
        m[off:off + len(chunk)] = chunk
    print(f"pinned {target >> 20} MiB in {time.time() - t0:.1f} s; "
          f"MemAvailable now {mem_available_kb() >> 10} MiB", flush=True)
    for p in range(passes):
        t0 = time.time()
        n = 0
        with open(path, "rb", buffering=0) as f:
            while True:
                b = f.read(1 << 20)
                if not b:
                    break
                n += len(b)
        print(f"pass {p}: read {n >> 20} MiB in {time.time() - t0:.1f} s", flush=True)
    m.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
