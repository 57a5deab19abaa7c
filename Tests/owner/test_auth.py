"""The owner's web side over the wire (issue 32): every protected route refused without
credentials (303 to /signin or 401 with WWW-Authenticate), sign-in with its cookie over HTTP and
HTTPS, no session fixation, `next` open-redirect attempts, sign-out, app tokens and their
revocation through the command line, CSRF and cross-site refusals, the sign-in throttle by
address (a second loopback address, 127.0.0.2, still signs in), --public-river, --trust-proxy
(direct and through the deploy's nginx), and stored pages never handed to a signed-out request.

Every server and client is on loopback; a second client address is 127.0.0.2 (bound as the
client socket's source address)."""
import html
import http.client
import json
import os
import re
import ssl
import subprocess
import tempfile
import urllib.parse

import pytest
from harness import wait_for
from harness.nginx import SiteNginx, executable as nginx_executable
from harness.server import Server, binary, repository_flags

PASSWORD = "correct horse battery"


# --- servers and the command line ---------------------------------------------------------------
def owner_command(database, *args, stdin=None):
    """`pullrefresh owner ARGS --database FILE`: (status, stdout, stderr)."""
    done = subprocess.run([binary(), "owner", *args, "--database", database], input=stdin,
                          capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def set_password(database, password=PASSWORD):
    status, out, err = owner_command(database, "set-password", stdin=password + "\n")
    assert status == 0, (out, err)


def create_token(database, name):
    status, out, err = owner_command(database, "token", "create", name)
    assert status == 0, (out, err)
    return out.strip().splitlines()[-1].strip()


@pytest.fixture
def start(folder):
    """Starts pullrefresh with a database in `folder` (an owner set unless owner=False) and the
    extra flags; stops every one at the end."""
    started = []

    def run(*flags, owner=True, name="feed.sqlite"):
        database = os.path.join(folder, name)
        if owner:
            set_password(database)
        server = Server("--port", "0", "--database", database, *repository_flags(), *flags, folder=folder)
        server.database = database
        started.append(server)
        return server

    yield run
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def certificate():
    """A self-signed certificate for 127.0.0.1 and localhost, for this module's TLS servers."""
    path = tempfile.mkdtemp(prefix="ptr-auth-tls-")
    cert, key = os.path.join(path, "cert.pem"), os.path.join(path, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", cert],
                   check=True, capture_output=True, timeout=60)
    return cert, key


# --- requests -------------------------------------------------------------------------------------
class Answer:
    def __init__(self, response):
        self.status = response.status
        self.message = response.msg
        self.body = response.read()

    def header(self, name):
        return self.message.get(name)

    def cookies(self):
        return self.message.get_all("Set-Cookie") or []

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")


def call(server, method, path, body=None, headers=None, source=None, port=None, scheme=None):
    """One request on a fresh connection from `source` (a loopback address) to the server."""
    scheme = scheme or server.scheme
    source_address = (source, 0) if source else None
    if scheme == "https":
        connection = http.client.HTTPSConnection("127.0.0.1", port or server.port, timeout=30,
                                                 source_address=source_address,
                                                 context=ssl._create_unverified_context())
    else:
        connection = http.client.HTTPConnection("127.0.0.1", port or server.port, timeout=30,
                                                source_address=source_address)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        return Answer(connection.getresponse())
    finally:
        connection.close()


def form(fields):
    return urllib.parse.urlencode(fields), {"Content-Type": "application/x-www-form-urlencoded"}


def sign_in(server, password=PASSWORD, next_path=None, headers=None, **options):
    fields = {"password": password}
    if next_path is not None:
        fields["next"] = next_path
    body, form_headers = form(fields)
    return call(server, "POST", "/signin", body=body, headers={**form_headers, **(headers or {})}, **options)


def session_cookie(answer):
    """(name, value) of the session cookie a sign-in set."""
    for line in answer.cookies():
        name, _, rest = line.partition("=")
        if name.endswith("pullrefresh_session"):
            return name, rest.split(";")[0]
    raise AssertionError(f"no session cookie in {answer.cookies()!r}")


def signed_in(server, **options):
    """A new session: the Cookie header value and its CSRF token (read from /signin)."""
    answer = sign_in(server, **options)
    assert answer.status == 303, answer.text
    name, value = session_cookie(answer)
    cookie = f"{name}={value}"
    page = call(server, "GET", "/signin", headers={"Cookie": cookie})
    assert page.status == 200
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token, page.text
    return cookie, html.unescape(token.group(1))


def stored_answers(server):
    """How many requests the server answered from stored responses (its metric)."""
    text = call(server, "GET", "/metrics").text
    return int(float(re.search(r"^pullrefresh_http_stored_responses_total (\S+)$", text, re.M).group(1)))


# --- refusals without credentials ---------------------------------------------------------------
PAGE_ROUTES = [("GET", "/"), ("GET", "/?layout=grid&lang=ja"), ("HEAD", "/"), ("POST", "/refresh"),
               ("GET", "/img/abc?w=96"), ("POST", "/signout"), ("POST", "/signout/everywhere")]
API_ROUTES = [("GET", "/api/items"), ("POST", "/api/refresh"), ("GET", "/api/events"), ("GET", "/api/sources"),
              ("GET", "/api/sources.opml")]
OPEN_ROUTES = ["/signin", "/healthz", "/metrics", "/static/app.css", "/manifest.webmanifest", "/sw.js",
               "/favicon.ico", "/api/openapi.json"]


def test_every_protected_route_refuses_a_request_without_credentials(start):
    server = start()
    for method, path in PAGE_ROUTES:
        answer = call(server, method, path)
        assert answer.status == 303, (method, path, answer.status)
        location = answer.header("Location")
        assert location.startswith("/signin"), (method, path, location)
        if method in ("GET", "HEAD"):
            # The page asked for, query and all, comes back after signing in.
            assert urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["next"] == [path]
    for method, path in API_ROUTES:
        answer = call(server, method, path)
        assert answer.status == 401, (method, path, answer.status)
        assert answer.header("WWW-Authenticate") == 'Bearer realm="pullrefresh"'
        assert json.loads(answer.body)["error"]["code"] == "unauthorized"
    for path in OPEN_ROUTES:
        assert call(server, "GET", path).status == 200, path
    # No item, no title of the river leaks into a refusal.
    assert b"feed-list" not in call(server, "GET", "/").body


def test_a_stored_page_is_never_handed_to_a_signed_out_request(start):
    server = start()
    cookie, _ = signed_in(server)
    first = call(server, "GET", "/", headers={"Cookie": cookie})
    stored_before = stored_answers(server)
    again = call(server, "GET", "/", headers={"Cookie": cookie})
    assert first.status == again.status == 200 and first.body == again.body
    assert stored_answers(server) == stored_before + 1  # the repeat came from the store
    # The page is stored now (the repeat was answered before routing): anonymous, a stale cookie,
    # a cookie under the TLS name over HTTP: each is refused, never handed the stored bytes.
    for headers in ({}, {"Cookie": "pullrefresh_session=" + "A" * 43},
                    {"Cookie": cookie.replace("pullrefresh_session", "__Host-pullrefresh_session")}):
        answer = call(server, "GET", "/", headers=headers)
        assert answer.status == 303 and b"feed-list" not in answer.body, headers
        api = call(server, "GET", "/api/items", headers=headers)
        assert api.status == 401, headers
    assert call(server, "GET", "/", headers={"Cookie": cookie}).status == 200


# --- signing in ---------------------------------------------------------------------------------
def test_sign_in_over_http_sets_an_http_only_lax_cookie_and_goes_to_next(start):
    server = start()
    page = call(server, "GET", "/signin?next=%2F%3Flayout%3Dgrid")
    assert page.status == 200 and 'name="password"' in page.text and 'value="/?layout=grid"' in page.text
    assert page.header("Cache-Control") == "no-store"
    # The page speaks the language of the page the reader came from.
    assert '<html lang="ja"' in call(server, "GET", "/signin?next=%2F%3Flang%3Dja").text
    answer = sign_in(server, next_path="/?layout=grid")
    assert answer.status == 303 and answer.header("Location") == "/?layout=grid"
    [line] = answer.cookies()
    attributes = [part.strip() for part in line.split(";")]
    assert attributes[0].startswith("pullrefresh_session=")
    assert {"Path=/", "HttpOnly", "SameSite=Lax"} <= set(attributes)
    assert "Secure" not in attributes and not any(a.lower().startswith("domain") for a in attributes)
    name, value = session_cookie(answer)
    assert call(server, "GET", "/", headers={"Cookie": f"{name}={value}"}).status == 200
    # The password never reaches the log.
    assert PASSWORD not in server.out_text() + server.err_text()


def test_sign_in_over_https_sets_a_secure_host_prefixed_cookie(start, certificate):
    server = start("--tls-cert", certificate[0], "--tls-key", certificate[1])
    assert server.scheme == "https"
    answer = sign_in(server)
    assert answer.status == 303
    [line] = answer.cookies()
    attributes = [part.strip() for part in line.split(";")]
    assert attributes[0].startswith("__Host-pullrefresh_session=")
    assert {"Path=/", "HttpOnly", "SameSite=Lax", "Secure"} <= set(attributes)
    name, value = session_cookie(answer)
    assert call(server, "GET", "/", headers={"Cookie": f"{name}={value}"}).status == 200
    # Over HTTPS only the __Host- cookie counts: a plain one may have been planted by a sibling.
    assert call(server, "GET", "/", headers={"Cookie": f"pullrefresh_session={value}"}).status == 303


def test_a_wrong_password_is_401_with_the_form_again(start):
    server = start()
    answer = sign_in(server, password="not the password", next_path="/api/items")
    assert answer.status == 401
    assert 'name="password"' in answer.text and 'value="/api/items"' in answer.text
    assert answer.cookies() == []
    assert "not the password" not in server.err_text()


def test_a_cookie_the_client_brought_is_never_made_a_session(start):
    server = start()
    planted = "pullrefresh_session=" + "P" * 43
    answer = sign_in(server, headers={"Cookie": planted})
    name, value = session_cookie(answer)
    assert value != "P" * 43
    assert call(server, "GET", "/", headers={"Cookie": planted}).status == 303
    # A session the browser already had ends when it signs in again.
    old_cookie, _ = signed_in(server)
    answer = sign_in(server, headers={"Cookie": old_cookie})
    assert answer.status == 303
    assert call(server, "GET", "/", headers={"Cookie": old_cookie}).status == 303
    name, value = session_cookie(answer)
    assert call(server, "GET", "/", headers={"Cookie": f"{name}={value}"}).status == 200


@pytest.mark.parametrize("target", ["//evil.example/", "/\\evil.example/", "https://evil.example/",
                                    "%2F%2Fevil.example", "javascript:alert(1)", "/\t/evil.example",
                                    "/\r\nSet-Cookie: x=1", "evil.example", ""])
def test_next_never_leaves_the_site(start, target):
    server = start()
    answer = sign_in(server, next_path=target)
    assert answer.status == 303 and answer.header("Location") == "/", answer.header("Location")
    assert answer.header("Set-Cookie") and "x=1" not in " ".join(answer.cookies())
    # The page that carries `next` into the form keeps only a local path too.
    page = call(server, "GET", "/signin?next=" + urllib.parse.quote(target, safe=""))
    assert 'name="next" value="/"' in page.text, target


# --- signing out ------------------------------------------------------------------------------
def test_sign_out_ends_the_session_on_the_server(start):
    server = start()
    cookie, token = signed_in(server)
    body, headers = form({"csrf": token})
    answer = call(server, "POST", "/signout", body=body, headers={**headers, "Cookie": cookie})
    assert answer.status == 303 and answer.header("Location") == "/signin"
    [cleared] = answer.cookies()
    assert cleared.startswith("pullrefresh_session=;") and "Max-Age=0" in cleared
    # The old cookie is dead even if a browser (or a thief) keeps sending it.
    assert call(server, "GET", "/", headers={"Cookie": cookie}).status == 303
    assert call(server, "GET", "/api/items", headers={"Cookie": cookie}).status == 401


def test_sign_out_everywhere_ends_every_session(start):
    server = start()
    phone, _ = signed_in(server)
    laptop, laptop_token = signed_in(server, source="127.0.0.2")
    assert call(server, "GET", "/", headers={"Cookie": phone}).status == 200
    body, headers = form({"csrf": laptop_token})
    answer = call(server, "POST", "/signout/everywhere", body=body, headers={**headers, "Cookie": laptop})
    assert answer.status == 303
    for cookie in (phone, laptop):
        assert call(server, "GET", "/", headers={"Cookie": cookie}).status == 303


# --- app tokens --------------------------------------------------------------------------------
def test_bearer_tokens_work_on_the_api_until_revoked(start):
    server = start()
    token = create_token(server.database, "reader-app")
    bearer = {"Authorization": f"Bearer {token}"}
    items = call(server, "GET", "/api/items", headers=bearer)
    assert items.status == 200 and "items" in json.loads(items.body)
    # A change by token needs no CSRF token and no Origin: there is no cookie to ride on.
    assert call(server, "POST", "/api/refresh", headers=bearer).status == 200
    assert call(server, "GET", "/api/sources.opml", headers=bearer).status in (200, 404)
    # Tokens are for the API; a page still wants the browser's sign-in.
    assert call(server, "GET", "/", headers=bearer).status == 303
    wrong = call(server, "GET", "/api/items", headers={"Authorization": "Bearer " + "x" * 43})
    assert wrong.status == 401 and 'error="invalid_token"' in wrong.header("WWW-Authenticate")
    status, out, err = owner_command(server.database, "token", "revoke", "reader-app")
    assert status == 0, (out, err)
    revoked = call(server, "GET", "/api/items", headers=bearer)
    assert revoked.status == 401 and json.loads(revoked.body)["error"]["code"] == "invalid_token"


# --- CSRF and other sites ----------------------------------------------------------------------
def test_owner_changes_need_the_csrf_token_and_this_sites_origin(start):
    server = start()
    cookie, token = signed_in(server)
    own = f"http://127.0.0.1:{server.port}"
    body, headers = form({"csrf": token})
    refusals = [
        (form({})[0], {}),  # no token
        (form({"csrf": "x" * len(token)})[0], {}),  # a wrong token
        (body, {"Origin": "http://evil.example"}),  # the right token from another origin
        (body, {"Sec-Fetch-Site": "cross-site"}),
        (body, {"Sec-Fetch-Site": "same-site"}),  # a sibling subdomain is not this site
        (body, {"Origin": f"http://127.0.0.1:{server.port + 1}"}),
    ]
    for refused_body, extra in refusals:
        answer = call(server, "POST", "/signout/everywhere", body=refused_body,
                      headers={**headers, **extra, "Cookie": cookie, "Host": f"127.0.0.1:{server.port}"})
        assert answer.status == 403, (refused_body, extra, answer.status)
        assert call(server, "GET", "/", headers={"Cookie": cookie}).status == 200
    # The header works as well as the field; with the site's own Origin and Sec-Fetch-Site.
    answer = call(server, "POST", "/signout", headers={
        "Cookie": cookie, "X-CSRF-Token": token, "Origin": own, "Sec-Fetch-Site": "same-origin"})
    assert answer.status == 303
    assert call(server, "GET", "/", headers={"Cookie": cookie}).status == 303


def test_reader_posts_need_no_token_but_refuse_other_sites(start):
    server = start()
    cookie, _ = signed_in(server)
    # What the page's own form and script send (Referrer-Policy: no-referrer makes Origin null).
    for extra in ({}, {"Origin": "null", "Sec-Fetch-Site": "same-origin"},
                  {"Origin": f"http://127.0.0.1:{server.port}"}):
        assert call(server, "POST", "/api/refresh", headers={"Cookie": cookie, **extra}).status == 200, extra
        assert call(server, "POST", "/refresh", headers={"Cookie": cookie, **extra}).status == 303, extra
    for extra in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        answer = call(server, "POST", "/api/refresh", headers={"Cookie": cookie, **extra})
        assert answer.status == 403 and json.loads(answer.body)["error"]["code"] == "cross_site"
    # Another site's sign-in form is refused too (it could sign a browser in).
    assert sign_in(server, headers={"Origin": "http://evil.example"}).status == 403


# --- throttling ----------------------------------------------------------------------------------
def test_five_failures_throttle_that_address_only(start):
    server = start()
    for attempt in range(5):
        assert sign_in(server, password=f"wrong guess {attempt}").status == 401
    for password in ("wrong guess 6", PASSWORD):
        answer = sign_in(server, password=password)
        assert answer.status == 429, (password, answer.status)
        assert int(answer.header("Retry-After")) > 0
        assert 'name="password"' in answer.text and answer.cookies() == []
    # The owner, elsewhere, still signs in.
    other = sign_in(server, source="127.0.0.2")
    assert other.status == 303 and session_cookie(other)
    log = server.err_text()
    assert "127.0.0.1" in log and "wrong guess" not in log and PASSWORD not in log


# --- a public river --------------------------------------------------------------------------------
def test_public_river_opens_reading_only(start):
    server = start("--public-river")
    anonymous = call(server, "GET", "/")
    assert anonymous.status == 200 and b"feed-list" in anonymous.body
    assert b"csrf" not in anonymous.body and b"signout" not in anonymous.body
    assert call(server, "GET", "/api/items").status == 200
    assert call(server, "POST", "/api/refresh").status == 200
    assert call(server, "POST", "/api/refresh", headers={"Origin": "http://evil.example"}).status == 403
    assert call(server, "GET", "/api/sources.opml").status == 401
    assert call(server, "POST", "/signout/everywhere").status == 303
    # The river's bytes are the same for everyone: nothing per session in them.
    cookie, _ = signed_in(server)
    owner_view = call(server, "GET", "/", headers={"Cookie": cookie})
    anonymous = call(server, "GET", "/")
    assert owner_view.status == anonymous.status == 200
    assert owner_view.header("ETag") == anonymous.header("ETag") and owner_view.body == anonymous.body


def test_public_river_needs_a_database():
    done = subprocess.run([binary(), "--public-river", "--port", "0"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "--public-river needs --database" in done.stderr


# --- no owner yet -------------------------------------------------------------------------------------
def test_a_database_without_an_owner_reads_openly_and_says_how_to_set_one(start):
    server = start(owner=False)
    assert call(server, "GET", "/").status == 200
    assert call(server, "GET", "/api/items").status == 200
    page = call(server, "GET", "/signin")
    assert page.status == 200 and "pullrefresh owner set-password --database FILE" in page.text
    refused = call(server, "POST", "/signout/everywhere")
    assert refused.status == 403 and "pullrefresh owner set-password" in refused.text
    assert sign_in(server).status == 403
    # Setting the password while it runs closes the river within a second (the server asks the
    # file again at most once a second while it has no owner).
    set_password(server.database)
    wait_for(lambda: call(server, "GET", "/").status == 303, "the river to close", timeout=5)
    assert call(server, "GET", "/api/items").status == 401


def test_without_a_database_the_sign_in_page_says_how_to_keep_an_owner():
    server = Server("--port", "0", *repository_flags())
    try:
        page = call(server, "GET", "/signin")
        assert page.status == 200 and "--database" in page.text
        assert call(server, "GET", "/").status == 200
        assert call(server, "GET", "/api/sources").status == 200
    finally:
        server.stop()


# --- behind a proxy ---------------------------------------------------------------------------------
def test_trust_proxy_takes_address_and_scheme_from_the_proxy_only(start):
    server = start("--trust-proxy", "127.0.0.1")
    forwarded = lambda client: {"X-Forwarded-For": f"127.0.0.99, {client}"}  # noqa: E731
    for attempt in range(5):
        assert sign_in(server, password=f"wrong {attempt}", headers=forwarded("127.0.0.9")).status == 401
    assert sign_in(server, headers=forwarded("127.0.0.9")).status == 429
    # Another client behind the same proxy is its own address.
    assert sign_in(server, headers=forwarded("127.0.0.10")).status == 303
    # HTTPS as the proxy says: the cookie is Secure and __Host-.
    secure = sign_in(server, headers={**forwarded("127.0.0.11"), "X-Forwarded-Proto": "https"})
    assert session_cookie(secure)[0] == "__Host-pullrefresh_session" and "Secure" in secure.cookies()[0]
    # From a peer that is not the proxy, the forwarded fields are the client's own words: ignored.
    direct = sign_in(server, headers={"X-Forwarded-For": "127.0.0.12", "X-Forwarded-Proto": "https"},
                     source="127.0.0.2")
    assert session_cookie(direct)[0] == "pullrefresh_session" and "Secure" not in direct.cookies()[0]
    assert "127.0.0.9" in server.err_text()


def test_without_trust_proxy_forwarded_fields_are_ignored(start):
    server = start()
    for attempt in range(5):
        assert sign_in(server, password=f"wrong {attempt}", headers={"X-Forwarded-For": f"127.0.0.{20 + attempt}"}
                       ).status == 401
    assert sign_in(server, headers={"X-Forwarded-For": "127.0.0.30"}).status == 429


@pytest.mark.skipif(nginx_executable() is None, reason="nginx is not installed (make ops-deps)")
def test_through_the_deploys_nginx_the_cookie_is_secure_and_csrf_checks_pass(start, certificate, folder):
    server = start("--trust-proxy", "127.0.0.1")
    site_folder = os.path.join(folder, "nginx")
    os.makedirs(site_folder)
    nginx = SiteNginx(site_folder, certificate[0], certificate[1], server.port)
    nginx.start()
    try:
        origin = f"https://localhost:{nginx.https_port}"
        via = dict(scheme="https", port=nginx.https_port)
        body, headers = form({"password": PASSWORD, "next": "/"})
        answer = call(server, "POST", "/signin", body=body,
                      headers={**headers, "Host": f"localhost:{nginx.https_port}", "Origin": origin}, **via)
        assert answer.status == 303, answer.text
        name, value = session_cookie(answer)
        assert name == "__Host-pullrefresh_session" and "Secure" in answer.cookies()[0]
        cookie = f"{name}={value}"
        page = call(server, "GET", "/signin", headers={"Cookie": cookie, "Host": f"localhost:{nginx.https_port}"},
                    **via)
        token = html.unescape(re.search(r'name="csrf" value="([^"]+)"', page.text).group(1))
        body, headers = form({"csrf": token})
        # The browser's Origin names the proxy's https origin: the server sees the same one.
        out = call(server, "POST", "/signout", body=body,
                   headers={**headers, "Cookie": cookie, "Origin": origin, "Host": f"localhost:{nginx.https_port}"},
                   **via)
        assert out.status == 303
        wait_for(lambda: "signed out" in server.err_text() or "signed out" in server.out_text(), "the sign-out line")
    finally:
        nginx.stop()
