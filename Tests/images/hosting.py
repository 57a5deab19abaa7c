"""The image host for a test suite: make-images.py's pictures, served by image_host.py on
127.0.0.1 (and .2) until the suite ends. `yield from serve_images()` in a pytest fixture."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def serve_images(prefix="ptr-images-"):
    """Yields the host's URL (`http://127.0.0.1:<port>`); stops it when resumed."""
    folder = tempfile.mkdtemp(prefix=prefix)
    subprocess.run([sys.executable, os.path.join(HERE, "make-images.py"), folder], check=True, timeout=120)
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "image_host.py"), folder],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().split()
    assert line[:1] == ["PORT"], line
    yield f"http://127.0.0.1:{line[1]}"
    proc.stdin.close()
    proc.wait(10)
