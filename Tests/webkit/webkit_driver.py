"""Drive WebKitGTK with real touch input: an Xvfb display, an LD_PRELOAD shim that makes GDK
report a touchscreen, and a WebView host process (webview_host.py) commanded over pipes.

    with Display() as display:
        browser = WebKitBrowser(display, width=390, height=844)
        browser.load("http://127.0.0.1:8080/")
        browser.touch_drag([(195, 150), (195, 250), (195, 350)], hold_ms=150)
        browser.eval_js("document.title")
        browser.close()

Everything runs under /usr/bin/python3 (Debian's python3-gi). Processes are ended by the PIDs
this module started, never by name.
"""
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time

from harness import wait_for_script

HERE = os.path.dirname(os.path.abspath(__file__))
HOST_SCRIPT = os.path.join(HERE, "webview_host.py")
SYSTEM_PYTHON = "/usr/bin/python3"

# Under Xvfb GDK sees no touchscreen, so WebKit hides the touch API ('ontouchstart' in window is
# false) although it delivers touch events. OR-ing the touch capability into the seat fixes that.
TOUCH_SHIM_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>

enum { GDK_SEAT_CAPABILITY_TOUCH = 1 << 1 };
typedef int (*capabilities_function)(void *seat);

int gdk_seat_get_capabilities(void *seat) {
    static capabilities_function real_capabilities;
    if (!real_capabilities)
        real_capabilities = (capabilities_function)dlsym(RTLD_NEXT, "gdk_seat_get_capabilities");
    return real_capabilities(seat) | GDK_SEAT_CAPABILITY_TOUCH;
}
"""


class DriverError(RuntimeError):
    pass


def stop_process(proc, grace=5):
    """SIGTERM, then SIGKILL after `grace` seconds, for a Popen we started."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(grace)


def process_start_time(pid):
    """Field 22 of /proc/PID/stat: tells a process from a later one that reused its PID."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def descendants(root_pid):
    """{pid: start time} of every live process below root_pid."""
    children_of = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children_of.setdefault(parent, []).append(int(entry))
    found, frontier = {}, [root_pid]
    while frontier:
        for child in children_of.get(frontier.pop(), []):
            start = process_start_time(child)
            if start is not None:
                found[child] = start
                frontier.append(child)
    return found


def end_processes(processes, grace=3):
    """SIGTERM then SIGKILL the given {pid: start time}, skipping any PID now owned by another."""
    def still_ours(pid):
        return process_start_time(pid) == processes[pid]
    for pid in processes:
        if still_ours(pid):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(still_ours(pid) for pid in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in processes:
        if still_ours(pid):
            os.kill(pid, signal.SIGKILL)


class Display:
    """An Xvfb server on a free display number (-displayfd), plus the touch shim built for it."""

    def __init__(self, screen="1280x1024x24", timeout=20):
        self.workdir = tempfile.mkdtemp(prefix="ptr-webkit-")
        self.shim = self._build_shim()
        read_end, write_end = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-screen", "0", screen, "-nolisten", "tcp"],
            pass_fds=[write_end], stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.workdir, "xvfb.log"), "wb"), start_new_session=True)
        os.close(write_end)
        try:
            self.name = ":" + self._read_display_number(read_end, timeout)
        except DriverError:
            stop_process(self.proc)
            raise
        finally:
            os.close(read_end)

    def _build_shim(self):
        source = os.path.join(self.workdir, "touch_shim.c")
        library = os.path.join(self.workdir, "touch_shim.so")
        with open(source, "w") as f:
            f.write(TOUCH_SHIM_SOURCE)
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", library, source, "-ldl"],
                       check=True, timeout=60)
        return library

    def _read_display_number(self, read_end, timeout):
        deadline, text = time.monotonic() + timeout, b""
        while b"\n" not in text:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise DriverError("Xvfb did not start: " + self.log())
            ready, _, _ = select.select([read_end], [], [], left)
            if ready:
                chunk = os.read(read_end, 64)
                if not chunk:
                    raise DriverError("Xvfb closed -displayfd: " + self.log())
                text += chunk
        return text.decode().strip()

    def log(self):
        with open(os.path.join(self.workdir, "xvfb.log"), errors="replace") as f:
            return f.read()[-2000:]

    def close(self):
        stop_process(self.proc)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class WebKitBrowser:
    """One WebView of a phone's size in its own host process on `display`."""

    def __init__(self, display, width=390, height=844, timeout=30):
        self.width, self.height = width, height
        self.log_path = os.path.join(display.workdir, f"host-{time.monotonic_ns()}.log")
        self.log_file = open(self.log_path, "wb")
        # NO_AT_BRIDGE: no accessibility bus to wait for on a machine without a session.
        env = dict(os.environ, DISPLAY=display.name, LD_PRELOAD=display.shim, GDK_BACKEND="x11",
                   NO_AT_BRIDGE="1")
        env.pop("WAYLAND_DISPLAY", None)
        self.proc = subprocess.Popen([SYSTEM_PYTHON, HOST_SCRIPT, str(width), str(height)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log_file, env=env, start_new_session=True)
        self.unread = b""
        self.next_id = 0
        self.helpers = {}
        try:
            ready = self._read_message(timeout)
        except DriverError:
            self._kill()
            raise
        if not ready.get("ready"):
            self._kill()
            raise DriverError(f"unexpected first message {ready!r}")

    # --- pipe protocol --------------------------------------------------------------------
    def _read_message(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.unread:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DriverError(f"no reply from the WebView within {timeout}s; log: {self.log()}")
            if self.proc.poll() is not None:
                raise DriverError(f"the WebView host exited ({self.proc.returncode}): {self.log()}")
            ready, _, _ = select.select([self.proc.stdout], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    continue  # EOF: poll() reports the exit on the next turn
                self.unread += chunk
        line, self.unread = self.unread.split(b"\n", 1)
        return json.loads(line)

    def _call(self, command, timeout=15, **params):
        self.next_id += 1
        request_id = self.next_id
        request = {"id": request_id, "cmd": command, **params}
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            reply = self._read_message(timeout)
            if reply.get("id") == request_id:
                break
        if not reply["ok"]:
            raise DriverError(f"{command} failed: {reply['error']}")
        return reply["value"]

    def log(self):
        self.log_file.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()[-3000:]

    # --- the API the tests use --------------------------------------------------------------
    def load(self, url, timeout=20):
        """Navigate and return once the load has finished (the load event has fired)."""
        uri = self._call("load", timeout, url=url)
        self._remember_helpers()
        return uri

    def eval_js(self, expression, timeout=15):
        """The value of a JS expression (awaited if it is a promise), through JSON."""
        return self._call("eval", timeout, expr=expression)

    def wait_for(self, expression, timeout=10, what=None):
        """Poll a JS expression until it is truthy; fail after `timeout` seconds."""
        return wait_for_script(self.eval_js, expression, timeout, what)

    def touch_drag(self, points, hold_ms=150, step_ms=16, release="end", timeout=20):
        """One finger: down at points[0], moved through the others every step_ms, held still
        hold_ms at the last (so WebKit adds no flick momentum), then lifted (release="end"),
        cancelled ("cancel": a GDK_TOUCH_CANCEL, which WebKitGTK hands the page as a touchend)
        or left down (None; finish with touch_release)."""
        if release not in ("end", "cancel", None):
            raise ValueError(release)
        return self._call("touch", timeout, points=[list(p) for p in points], step_ms=step_ms,
                          hold_ms=hold_ms, release=release)

    def touch_release(self, point, kind="end"):
        """Lift ("end") or cancel ("cancel") the finger a touch_drag(release=None) left down."""
        return self._call("release", kind=kind, point=list(point))

    def close(self):
        """Close the view, let WebKit wind down, then end the host and WebKit helpers it started."""
        if self.proc.poll() is None:
            self._remember_helpers()
            try:
                self._call("quit", timeout=10)
                self.proc.wait(5)
            except (DriverError, OSError, subprocess.TimeoutExpired):
                pass
        self._kill()

    def _remember_helpers(self):
        """Note WebKit's helper processes while they are still the host's descendants: once
        the host has exited they are orphans nobody could tell apart from others'."""
        if self.proc.poll() is None:
            self.helpers.update(descendants(self.proc.pid))

    def _kill(self):
        self._remember_helpers()
        stop_process(self.proc)
        end_processes(self.helpers)
        self.log_file.close()


def vertical_path(x, y_start, y_end, steps):
    """`steps` + 1 evenly spaced points from (x, y_start) to (x, y_end), both ends included."""
    return [(x, y_start + (y_end - y_start) * i / steps) for i in range(steps + 1)]
