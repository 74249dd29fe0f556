"""Inside the sandbox: execute one submitted notebook and hand its answers to the grader.

    python -m kernel_workbook.exercises.runner --fd N --notebook PATH --seconds S --memory-mb M --processes P

Started by :func:`.sandbox.run_submission`.  It first lowers its own limits
(inherited by the kernel and everything the student's code starts, and never
raised again: the hard limits go down too), then executes the notebook in a
Jupyter kernel with nbclient, every cell under what is left of the
submission's time, and finally asks the kernel for its answers through the
Jupyter protocol's ``user_expressions`` (a reply on the shell channel, not the
notebook's printed output: redefining ``print``, writing to ``sys.stdout`` or
printing a fake record beforehand changes nothing).  The answer goes to the
grader on file descriptor ``N``, which the kernel never inherits; the
notebook's outputs never reach it.  Nothing here trusts the student's code,
and the grader trusts nothing that comes back (:mod:`.grading` validates it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path

# evaluated in the student's namespace by the kernel, after the last cell
EXPRESSION = ("__import__('kernel_workbook.exercises.grading', fromlist=['submission_json'])"
              ".submission_json(globals())")


def _limit(which, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    v = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (v, v))


def _not_dumpable() -> None:
    """No process of the sandbox's user may read this one's memory or file descriptors (ptrace, /proc/PID/fd)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0
    except (OSError, AttributeError):
        pass


def seed_numba_cache(cache: Path) -> int:
    """Copy the package's own compiled Numba functions into ``cache`` (``NUMBA_CACHE_DIR``), laid out as
    Numba's user-provided locator looks for them; the number of files copied.

    The package is mounted read-only in the sandbox, and Numba uses a cache folder only if it can write to it:
    without this every model a notebook runs would be compiled again, minutes per submission.  A private copy
    in the sandbox's /tmp: what a submission writes there dies with it, never reaching the next one."""
    import hashlib

    from kernel_workbook.paths import package_dir

    n = 0
    for pyc in package_dir().rglob("__pycache__"):
        files = [f for f in pyc.iterdir() if f.suffix in (".nbi", ".nbc")]
        if not files:
            continue
        src = str(pyc.parent)  # the folder of the .py files, as numba names it
        dest = cache / f"{pyc.parent.name}_{hashlib.sha1(src.encode()).hexdigest()}"
        dest.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copyfile(f, dest / f.name)
            n += 1
    return n


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:200]}" if text else type(e).__name__


def execute(path: Path, work: Path, deadline: float) -> dict:
    """Run the notebook at ``path`` in ``work``; ``{"record": text|None, "cell_errors": [...], "error": ...}``."""
    # nbformat imports jsonschema, which builds rfc3987_syntax's grammar at import when that package is there
    # (a jupyter-events dependency): 2-4 s of every submission's time, for an "iri" format check no notebook
    # schema uses.  Marked missing, jsonschema skips that one check (it imports it under suppress(ImportError)).
    sys.modules.setdefault("rfc3987_syntax", None)
    import nbclient
    import nbformat
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbclient.util import ensure_async, run_sync

    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as e:  # nbformat raises several kinds for a file that is not a notebook
        return {"error": f"not a readable notebook ({_first_line(e)})"}

    def left(cell=None) -> int:
        return max(1, int(deadline - time.monotonic()))

    class Client(nbclient.NotebookClient):
        reply = None

        async def async_execute(self, reset_kc: bool = False, **kw):
            async with self.async_setup_kernel(**kw):
                msg_id = await ensure_async(self.kc.kernel_info())
                await self.async_wait_for_reply(msg_id)
                for index, cell in enumerate(self.nb.cells):
                    await self.async_execute_cell(cell, index, execution_count=self.code_cells_executed + 1)
                self.timeout = left()
                msg_id = self.kc.execute("", silent=True, store_history=False, user_expressions={"kwb": EXPRESSION})
                self.reply = await self.async_wait_for_reply(msg_id)
            return self.nb

        execute = run_sync(async_execute)

    client = Client(nb, timeout=left(), timeout_func=left, startup_timeout=left(), kernel_name="python3",
                    allow_errors=True, shutdown_kernel="immediate", resources={"metadata": {"path": str(work)}})
    out: dict = {"record": None, "cell_errors": []}
    try:
        client.execute()
    except CellTimeoutError:
        out["error"] = "stopped at the time limit"
    except DeadKernelError:
        out["error"] = "the kernel died (over the memory or process limit?)"
    except Exception as e:  # the kernel would not start, or stopped answering: the submission scores nothing
        out["error"] = f"the notebook did not run to the end ({_first_line(e)})"
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error" and len(out["cell_errors"]) < 20:
                out["cell_errors"].append(f"{str(o.get('ename'))[:100]}: {str(o.get('evalue'))[:300]}")
    reply = client.reply
    if reply is not None:
        got = (reply.get("content") or {}).get("user_expressions", {}).get("kwb") or {}
        if got.get("status") == "ok":
            out["record"] = (got.get("data") or {}).get("text/plain")
        else:
            out["error"] = f"the answers could not be read ({got.get('ename')}: {str(got.get('evalue'))[:300]})"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="kernel_workbook.exercises.runner")
    ap.add_argument("--fd", type=int, required=True)
    ap.add_argument("--notebook", required=True)
    ap.add_argument("--work", default="/tmp/work")
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--memory-mb", type=int, required=True)
    ap.add_argument("--processes", type=int, required=True)
    ap.add_argument("--file-mb", type=int, required=True)
    a = ap.parse_args(argv)
    deadline = time.monotonic() + a.seconds
    os.set_inheritable(a.fd, False)  # the kernel (and the student's code) never gets the channel
    _not_dumpable()
    _limit(resource.RLIMIT_NPROC, a.processes)
    _limit(resource.RLIMIT_DATA, a.memory_mb << 20)
    _limit(resource.RLIMIT_FSIZE, a.file_mb << 20)
    _limit(resource.RLIMIT_CORE, 0)
    work = Path(a.work)
    for d in ("HOME", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME", "NUMBA_CACHE_DIR"):
        if os.environ.get(d):
            os.makedirs(os.environ[d], exist_ok=True)
    try:
        work.mkdir(parents=True, exist_ok=True)
        dest = work / Path(a.notebook).name
        shutil.copyfile(a.notebook, dest)
        if os.environ.get("NUMBA_CACHE_DIR"):
            seed_numba_cache(Path(os.environ["NUMBA_CACHE_DIR"]))
        out = execute(dest, work, deadline)
    except Exception as e:  # the runner's own failure: said, never a traceback on the grader's terminal
        out = {"error": f"the grader's runner failed ({_first_line(e)})"}
    data = json.dumps(out).encode()
    with os.fdopen(a.fd, "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
