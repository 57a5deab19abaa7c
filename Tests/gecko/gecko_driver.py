"""Headless Firefox ESR (Gecko) as a touch phone, driven over Marionette (marionette_driver; no
geckodriver), with trusted touch input by two paths (see /work/shared/notes or README.md):

- "actions": WebDriver touch actions (Marionette's content-side synthesizeTouchEvent: real
  WidgetTouchEvents through PresShell and the EventStateManager, but not through APZ, so the
  engine does not scroll under the finger);
- "apz": touches synthesized on the browser window from a chrome-context script with
  isAsyncEnabled, which enter at the top-level widget and go through APZ (hit testing,
  touch-action, waiting for the page's preventDefault, async scrolling) as an OS touch does.

The profile fakes a touchscreen phone: touch events and their legacy `ontouch*` API on, coarse
pointer, 5 touch points, the meta viewport honoured, Firefox for Android's UA, and a
userChrome.css rule that lets a --kiosk window be 390 px wide. All traffic stays on loopback.
"""
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time

from harness import wait_for_script
from marionette_driver.marionette import Marionette

PREFS = {
    "marionette.port": 0,
    "dom.w3c_touch_events.enabled": 1,
    "dom.w3c_touch_events.legacy_apis.enabled": True,
    "ui.primaryPointerCapabilities": 1,
    "ui.allPointerCapabilities": 1,
    "dom.maxtouchpoints.testing.value": 5,
    "dom.meta-viewport.enabled": True,
    "toolkit.legacyUserProfileCustomizations.stylesheets": True,
    # Nothing leaves the machine: a dead proxy (127.0.0.1 itself bypasses it), no DNS over
    # HTTPS, no telemetry, updates, remote settings, safe browsing or captive-portal checks.
    "network.proxy.type": 1,
    "network.proxy.http": "127.0.0.1",
    "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1",
    "network.proxy.ssl_port": 9,
    "network.proxy.allow_hijacking_localhost": False,
    "network.trr.mode": 5,
    "toolkit.telemetry.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "app.update.enabled": False,
    "app.update.disabledForTesting": True,
    "services.settings.server": "http://127.0.0.1:9/",
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "extensions.update.enabled": False,
    "media.gmp-manager.url": "http://127.0.0.1:9/",
}
USERCHROME = ":root, #main-window { min-width: 0 !important; min-height: 0 !important; }\n"
PR_SET_CHILD_SUBREAPER = 36


def firefox_binary():
    found = os.environ.get("FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
    if not found:
        raise RuntimeError("firefox-esr not found: run `make gecko-deps`")
    return found


def _value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


class Firefox:
    """One headless Firefox (its own temporary profile, its own process group) and a Marionette
    session on it, sized to a 390×844 phone."""

    def __init__(self, width=390, height=844, version=None):
        # crashhelper double-forks away from Firefox; as a subreaper this process adopts it, so
        # it can be ended and reaped by PID (PID 1 here reaps nobody).
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        self.profile = tempfile.mkdtemp(prefix="ptr-gecko-")
        prefs = dict(PREFS)
        binary = firefox_binary()
        version = version or subprocess.run([binary, "--version"], capture_output=True, text=True,
                                            timeout=30).stdout.split()[-1].replace("esr", "")
        prefs["general.useragent.override"] = (
            f"Mozilla/5.0 (Android 14; Mobile; rv:{version}) Gecko/{version} Firefox/{version}")
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for name, value in prefs.items():
                f.write(f'user_pref("{name}", {_value(value)});\n')
        os.makedirs(os.path.join(self.profile, "chrome"))
        with open(os.path.join(self.profile, "chrome", "userChrome.css"), "w") as f:
            f.write(USERCHROME)
        self.log = open(os.path.join(self.profile, "firefox.log"), "wb")
        env = dict(os.environ, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1")
        self.proc = subprocess.Popen(
            [binary, "--headless", "--kiosk", "-remote-allow-system-access", "--marionette",
             "--no-remote", "--profile", self.profile, "about:blank"],
            stdout=self.log, stderr=self.log, env=env, start_new_session=True)
        port_file = os.path.join(self.profile, "MarionetteActivePort")
        deadline = time.monotonic() + 60
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("firefox did not start: " + self.log_text()[-2000:])
            time.sleep(0.05)
        self.marionette = Marionette(host="127.0.0.1", port=int(open(port_file).read().strip()))
        self.marionette.start_session()
        self.marionette.set_window_rect(width=width, height=height)

    def log_text(self):
        with open(os.path.join(self.profile, "firefox.log"), "rb") as f:
            return f.read().decode(errors="replace")

    # --- the page ------------------------------------------------------------------------
    def load(self, url):
        self.marionette.navigate(url)

    def eval_js(self, expression):
        """An expression evaluated in the page's own world (not through Xrays)."""
        return self.marionette.execute_script(f"return ({expression});", sandbox=None)

    def wait_for(self, expression, timeout=10, what=None):
        """Polls a JS expression until it is truthy, failing after `timeout` seconds (the
        harness's page poll, which the WebKit driver uses too)."""
        return wait_for_script(self.eval_js, expression, timeout, what)

    # --- touch -----------------------------------------------------------------------------
    def drag(self, path, x, ys, hold_ms=100, end="touchend"):
        """One finger at `x` through the heights `ys` (the first is where it goes down), about
        13 ms between moves, held `hold_ms` at the last, then lifted (or, with
        end="touchcancel", cancelled; end=None leaves it down)."""
        if path == "actions":
            self._drag_actions(x, ys, hold_ms, end)
        elif path == "apz":
            self._drag_apz(x, ys, hold_ms, end)
        else:
            raise ValueError(path)

    def _drag_actions(self, x, ys, hold_ms, end):
        m = self.marionette
        if end == "touchcancel":
            self._drag_content(x, ys, hold_ms)
            return
        sequence = m.actions.sequence("pointer", "finger1", {"pointerType": "touch"})
        sequence.pointer_move(x, ys[0]).pointer_down()
        for y in ys[1:]:
            sequence.pause(13)
            sequence.pointer_move(x, y)
        if end is not None:
            sequence.pause(hold_ms)
        if end == "touchend":
            sequence.pointer_up()
        sequence.perform()
        if end == "touchend":
            m.actions.release()

    def _drag_content(self, x, ys, hold_ms):
        """WebDriver has no touch cancel: the gesture ending in one is made the way the actions
        path makes its touches, by the content process's synthesizeTouchEvent (trusted
        WidgetTouchEvents through PresShell, not page-made events), from a system-principal
        sandbox, paced by its timers."""
        self.marionette.execute_async_script("""
            const [x, ys, holdMs, resolve] = arguments;
            const touch = (type, y) => window.synthesizeTouchEvent(type, [{identifier: 0,
                offsetX: x, offsetY: y, radiiX: 1, radiiY: 1, rotationAngle: 0, pressure: 1}], 0, {});
            const later = ms => new Promise(done => setTimeout(done, ms));
            (async () => {
              touch('touchstart', ys[0]);
              for (const y of ys.slice(1)) { await later(13); touch('touchmove', y); }
              await later(holdMs);
              touch('touchcancel', ys[ys.length - 1]);
              resolve(true);
            })();
        """, script_args=[x, list(ys), hold_ms], sandbox="system")

    def _drag_apz(self, x, ys, hold_ms, end):
        with self.marionette.using_context(Marionette.CONTEXT_CHROME):
            self.marionette.execute_async_script("""
                const [x, ys, holdMs, end, resolve] = arguments;
                const win = Services.wm.getMostRecentWindow('navigator:browser');
                const touch = (type, y) => win.synthesizeTouchEvent(type, [{identifier: 1,
                    offsetX: x, offsetY: y, radiiX: 1, radiiY: 1, rotationAngle: 0, pressure: 1}],
                    0, {isAsyncEnabled: true, isDOMEventSynthesized: false});
                const later = ms => new Promise(done => win.setTimeout(done, ms));
                (async () => {
                  touch('touchstart', ys[0]);
                  for (const y of ys.slice(1)) { await later(13); touch('touchmove', y); }
                  if (end) { await later(holdMs); touch(end, ys[ys.length - 1]); }
                  await later(50);
                  resolve(true);
                })();
            """, script_args=[x, list(ys), hold_ms, end])

    # --- the end -----------------------------------------------------------------------------
    def close(self):
        try:
            if hasattr(self, "marionette"):
                self.marionette.delete_session()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        # Whatever is left of the process group this Firefox was started in (its content
        # processes, crashhelper), then reap what was adopted.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        _end_crashhelper(self.proc.pid)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def _end_crashhelper(firefox_pid):
    """Ends and reaps, by PID, the crashhelper of the Firefox `firefox_pid`: it double-forks
    into a process group of its own, is adopted by this (subreaper) process, and names its
    Firefox as its first argument. Other children (the servers) are left to their own Popen."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and argv[0].endswith(b"crashhelper") and argv[1:2] == [str(firefox_pid).encode()]:
            try:
                os.kill(int(entry), signal.SIGKILL)
                os.waitpid(int(entry), 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def vertical_path(start, end, step=10):
    """The heights a finger passes through from `start` to `end`, `step` px apart."""
    sign = 1 if end >= start else -1
    return list(range(start, end + sign, sign * step))
