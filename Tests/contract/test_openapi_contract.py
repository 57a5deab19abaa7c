"""The API contract: schemathesis generates requests from /api/openapi.json against a live
server and checks every response (status codes, schemas, content types, headers, no 5xx)."""
import shutil
import subprocess

import pytest

from harness.server import Server, repository_flags


@pytest.fixture()
def server(tmp_path):
    srv = Server("--port", "0", "--quiet", "--reload-delay", "0", *repository_flags(), folder=tmp_path)
    srv.wait_healthy()
    yield srv.url
    assert srv.stop(30) == 0


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
