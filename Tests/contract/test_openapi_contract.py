"""The API contract: schemathesis generates requests from /api/openapi.json against a live
server and checks every response (status codes, schemas, content types, headers, no 5xx)."""
import os
import re
import signal
import subprocess
import sys
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("PULLREFRESH_BIN", str(ROOT / ".build/debug/pullrefresh"))


@pytest.fixture()
def server():
    process = subprocess.Popen(
        [BINARY, "--port", "0", "--quiet", "--reload-delay", "0", "--templates", str(ROOT / "Templates"),
         "--public", str(ROOT / "Public")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)$", line.strip())
    if not match:
        process.kill()
        pytest.fail(f"server did not start: {line!r} {process.stderr.read()}")
    yield f"http://127.0.0.1:{match.group(1)}"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0


def test_api_conforms_to_its_openapi_document(server):
    command = shutil.which("schemathesis") or shutil.which("st")
    assert command, "schemathesis is not installed (pip install -r Tests/contract/requirements.txt)"
    result = subprocess.run(
        [command, "run", f"{server}/api/openapi.json", "--checks", "all", "--max-examples", "150",
         "--workers", "2", "--seed", "1"],
        capture_output=True, text=True, timeout=600)
    print(result.stdout[-6000:])
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "passed" in result.stdout
