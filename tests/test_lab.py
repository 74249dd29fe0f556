"""`make lab`: the server answers and serves the start notebook (no browser needed)."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def lab_server(tmp_path):
    port = free_port()
    token = "kwb-test-token"
    env = {**os.environ, "WORKBOOK_MODE": "lab", "JUPYTER_RUNTIME_DIR": str(tmp_path),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    bindir = Path(sys.executable).parent
    proc = subprocess.Popen(
        [str(bindir / "jupyter"), "lab", "--no-browser", *(["--allow-root"] if os.geteuid() == 0 else []),
         "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}", "notebooks/00-start-here.ipynb"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("jupyter lab did not answer within 60 s:\n" + proc.stdout.read1().decode(errors="replace"))
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_lab_serves_the_start_notebook(lab_server):
    base, token = lab_server
    page = urllib.request.urlopen(f"{base}/lab/tree/notebooks/00-start-here.ipynb?token={token}", timeout=10).read()
    assert b"JupyterLab" in page or b"jupyter" in page.lower()
    api = json.loads(urllib.request.urlopen(
        f"{base}/api/contents/notebooks/00-start-here.ipynb?token={token}", timeout=10).read())
    assert api["type"] == "notebook" and api["content"]["cells"]
    kernels = json.loads(urllib.request.urlopen(f"{base}/api/kernelspecs?token={token}", timeout=10).read())
    assert "python3" in kernels["kernelspecs"]
    # the offline renderer's front end is installed as a lab extension
    ext = urllib.request.urlopen(f"{base}/lab/api/extensions?token={token}", timeout=10).read().decode()
    assert "anywidget" in ext and "jupyterlab_widgets" in ext or "@jupyter-widgets/jupyterlab-manager" in ext
