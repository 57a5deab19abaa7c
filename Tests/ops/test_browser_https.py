"""Smoke test of the page over HTTPS in headless Chromium (test certificate, so
--ignore-certificate-errors): it loads from https://, its script and styles load, and a real
touch pull-to-refresh (Input.dispatchTouchEvent) posts one refresh and shows new items."""
import pytest

from harness.chromium import launch_chromium
from harness.fixtures import phone_page  # noqa: F401  (the `page` fixture)

ITEMS = "document.querySelectorAll('[data-item-id]').length"


@pytest.fixture(scope="module")
def browser():
    """Chromium that accepts the test certificate made by the `certs` fixture."""
    with launch_chromium(["--ignore-certificate-errors"]) as cdp:
        yield cdp


def test_pull_to_refresh_over_https(page, server, certs):
    srv = server("--tls-cert", certs.cert, "--tls-key", certs.key, "--hsts", "--reload-delay", "0.3", "--quiet")
    # localhost, not 127.0.0.1: the test certificate names it, and it is a secure context.
    page.goto(srv.url.replace("127.0.0.1", "localhost") + "/")
    assert page.eval("location.protocol") == "https:"
    assert page.eval("window.isSecureContext") is True
    page.wait_for("document.querySelector('[data-pull-to-refresh]')?.dataset.ptrState === 'idle'", 10,
                  "the gesture script to attach")
    before = page.eval(ITEMS)
    assert before > 0

    page.drag(195, 150, 320)
    page.wait_for(f"{ITEMS} > {before}", 10, "new items after the pull")
    posts = page.requests("/api/refresh", method="POST")
    assert len(posts) == 1, posts
    assert posts[0]["url"].startswith("https://localhost:")
