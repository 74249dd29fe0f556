"""The five LKML threads the workbook is built on.

Adding a thread means: its text in ``data/threads/<id>.txt``, an entry here,
its tables in ``data/published/tables.csv``, and, once a model reproduces it,
a ``ThreadReproduction`` in the declaration of the heuristic that models it
(``docs/ARCHITECTURE.md``, "How to add a model").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import WorkbookParameterError
from .paths import threads_dir


@dataclass(frozen=True)
class Thread:
    id: str
    title: str
    heuristic: str
    era: str  # mmtests rendering era of its tables, see tables.eras
    archive: str  # where the text was taken from
    baseline: str  # the kernel column a model may be calibrated on

    @property
    def path(self) -> Path:
        return threads_dir() / f"{self.id}.txt"

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


THREADS: dict[str, Thread] = {
    t.id: t
    for t in (
        Thread(
            "2014-seqread-fairzone-cfq",
            "[PATCH 0/4] Improve sequential read throughput (Mel Gorman, June 2014)",
            "CFQ target_latency; fair zone allocation batches (NR_ALLOC_BATCH)",
            "2014",
            "linux-kernel.vger.kernel.org archive mirror (public-inbox), thread of 13 messages",
            "3.16.0-rc1 vanilla",
        ),
        Thread(
            "2015-numa-slow-scan",
            "[PATCH 4/4] mm: numa: Slow PTE scan rate if migration failures occur (Mel Gorman, March 2015)",
            "automatic NUMA balancing scan-period throttling",
            "2015",
            "patchwork mailing-list archive, Message ID 1425741651-29152-5-git-send-email-mgorman@suse.de, with its comments",
            "3.19.0 vanilla",
        ),
        Thread(
            "2011-cfq-deep-idle",
            "[PATCH 0/1] CFQ: fixing performance issues (Maxim Patlasov, August 2011)",
            "CFQ idling on seeky 'deep' queues",
            "2014",
            "blists mailing-list archive, Message-Id 1313768318-7960-1-git-send-email-maxim.patlasov@gmail.com",
            "Pristine 3.1.0-rc2 (CFQ)",
        ),
        Thread(
            "2007-throttle-vm-writeout",
            "Re: [PATCH] remove throttle_vm_writeout() (Fengguang Wu, Andrew Morton, October 2007)",
            "kswapd writeback, congestion_wait, reclaim efficiency",
            "2014",
            "LKML hypermail archive, one message of 5 Oct 2007 quoting Andrew Morton",
            "",
        ),
        Thread(
            "2012-highalloc-compaction",
            "[PATCH 0/7] Improve hugepage allocation success rates under load V5 (Mel Gorman, August 2012)",
            "compaction, capture, high-order allocation",
            "2014",
            "mail archive of linux-mm, 17 Aug 2012 (the archive shows the message twice)",
            "revert-v5",
        ),
    )
}


def get(thread_id: str) -> Thread:
    """The :class:`Thread` with this id; a clear error for an unknown one."""
    try:
        return THREADS[thread_id]
    except KeyError:
        raise WorkbookParameterError("thread", thread_id, "one of " + ", ".join(THREADS)) from None
