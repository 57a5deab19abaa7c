"""The browser side of the WebKit driver: one GTK window holding one WebKitGTK WebView, run under
/usr/bin/python3 (Debian's python3-gi) on an Xvfb display, commanded by webkit_driver.py.

Protocol: one JSON object per line on stdin ({"id", "cmd", ...}); one JSON reply per line on
stdout ({"id", "ok": true, "value"} or {"id", "ok": false, "error"}). Commands are handled
asynchronously inside the GTK main loop, so the page keeps running between and during them:
  load {url}                         navigate, reply when the load has finished
  eval {expr}                        evaluate a JS expression (promises are awaited), reply JSON
  touch {points, step_ms, hold_ms, release}
                                     a one-finger drag as real GTK touch events (see touch())
  quit                               close the view, let WebKit wind down, exit

Why GTK touch events and not WebDriver: on Debian 12 WebKitWebDriver turns touch actions into
mouse events (../../../shared/notes/webkit-touch.md). A GdkEventTouch handed to
gtk_main_do_event() takes the same path as a touchscreen's: WebKit sends the page trusted,
cancelable touch events and scrolls on its own when they are not prevented.
"""
import ctypes
import json
import os
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import Gdk, GLib, Gtk, WebKit2  # noqa: E402

# --- GdkEventTouch through ctypes (PyGObject cannot fill a touch event's sequence) -----------
GDK_TOUCH_BEGIN = int(Gdk.EventType.TOUCH_BEGIN)
GDK_TOUCH_UPDATE = int(Gdk.EventType.TOUCH_UPDATE)
GDK_TOUCH_END = int(Gdk.EventType.TOUCH_END)
GDK_TOUCH_CANCEL = int(Gdk.EventType.TOUCH_CANCEL)
RELEASE_EVENTS = {"end": GDK_TOUCH_END, "cancel": GDK_TOUCH_CANCEL}

# WebKit keys touch points by their sequence pointer; any stable non-NULL value names a finger.
FIRST_FINGER = ctypes.c_void_p(1)


class GdkEventTouch(ctypes.Structure):
    """struct _GdkEventTouch from gdk/gdkevents.h (GTK 3)."""
    _fields_ = [
        ("type", ctypes.c_int),
        ("window", ctypes.c_void_p),
        ("send_event", ctypes.c_int8),
        ("time", ctypes.c_uint32),
        ("x", ctypes.c_double),
        ("y", ctypes.c_double),
        ("axes", ctypes.c_void_p),
        ("state", ctypes.c_uint),
        ("sequence", ctypes.c_void_p),
        ("emulating_pointer", ctypes.c_int),
        ("device", ctypes.c_void_p),
        ("x_root", ctypes.c_double),
        ("y_root", ctypes.c_double),
    ]


libgdk = ctypes.CDLL("libgdk-3.so.0")
libgtk = ctypes.CDLL("libgtk-3.so.0")
libgobject = ctypes.CDLL("libgobject-2.0.so.0")
libgdk.gdk_event_new.restype = ctypes.c_void_p
libgdk.gdk_event_new.argtypes = [ctypes.c_int]
libgdk.gdk_event_free.argtypes = [ctypes.c_void_p]
libgdk.gdk_event_set_device.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
libgdk.gdk_event_set_source_device.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
libgtk.gtk_main_do_event.argtypes = [ctypes.c_void_p]
libgobject.g_object_ref.restype = ctypes.c_void_p
libgobject.g_object_ref.argtypes = [ctypes.c_void_p]
ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def c_pointer(gobject):
    """The C address of a PyGObject wrapper."""
    return ctypes.pythonapi.PyCapsule_GetPointer(gobject.__gpointer__, None)


# --- the window ----------------------------------------------------------------------------
class Host:
    def __init__(self, width, height):
        # Ephemeral: no disk cache or cookies, so each run sees exactly what the server serves now.
        self.context = WebKit2.WebContext.new_ephemeral()
        self.view = WebKit2.WebView.new_with_context(self.context)
        self.window = Gtk.Window()
        self.window.set_default_size(width, height)
        self.window.add(self.view)
        self.window.show_all()
        self.pending_load = None
        self.view.connect("load-changed", self.on_load_changed)
        self.view.connect("load-failed", self.on_load_failed)
        self.touch_device = Gdk.Display.get_default().get_default_seat().get_pointer()

    # replies
    def reply(self, request_id, value=None, error=None):
        message = {"id": request_id, "ok": error is None}
        if error is None:
            message["value"] = value
        else:
            message["error"] = error
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    # load
    def load(self, request_id, url):
        self.pending_load = request_id
        self.view.load_uri(url)

    def on_load_changed(self, view, event):
        if event == WebKit2.LoadEvent.FINISHED and self.pending_load is not None:
            request_id, self.pending_load = self.pending_load, None
            self.reply(request_id, view.get_uri())

    def on_load_failed(self, view, event, uri, error):
        if self.pending_load is not None:
            request_id, self.pending_load = self.pending_load, None
            self.reply(request_id, error=f"load of {uri} failed: {error.message}")
        return True

    # eval
    def evaluate(self, request_id, expression):
        # An async function body, so a returned promise is awaited; JSON carries the value back.
        body = ("const value = await (" + expression + ");\n"
                "return value === undefined ? 'null' : JSON.stringify(value);")

        def finished(view, result):
            try:
                value = view.call_async_javascript_function_finish(result)
                self.reply(request_id, json.loads(value.to_string()))
            except GLib.Error as error:
                self.reply(request_id, error=error.message)
        self.view.call_async_javascript_function(body, -1, None, None, None, None, finished)

    # touch
    def send_touch(self, event_type, x, y):
        gdk_window = self.view.get_window()
        _, origin_x, origin_y = gdk_window.get_origin()
        event_pointer = libgdk.gdk_event_new(event_type)
        event = ctypes.cast(event_pointer, ctypes.POINTER(GdkEventTouch)).contents
        # gdk_event_free() unrefs the window, so the event takes its own reference.
        event.window = libgobject.g_object_ref(c_pointer(gdk_window))
        event.send_event = 0
        event.time = (GLib.get_monotonic_time() // 1000) & 0xFFFFFFFF  # ms, like the X server's
        event.x, event.y = float(x), float(y)
        event.x_root, event.y_root = float(origin_x + x), float(origin_y + y)
        event.sequence = FIRST_FINGER
        # 0: a real touch. With 1 GTK takes its pointer-emulation path and nothing scrolls.
        event.emulating_pointer = 0
        device = c_pointer(self.touch_device)
        libgdk.gdk_event_set_device(event_pointer, device)
        libgdk.gdk_event_set_source_device(event_pointer, device)
        libgtk.gtk_main_do_event(event_pointer)
        libgdk.gdk_event_free(event_pointer)

    def touch(self, request_id, points, step_ms, hold_ms, release):
        """Finger down at points[0], one move per further point every step_ms, hold_ms still at
        the last point, then release ("end" or "cancel") or keep the finger down (None). Each
        event is its own main-loop callback, so WebKit and the page run between them."""
        steps = [(GDK_TOUCH_BEGIN, points[0], step_ms)]
        steps += [(GDK_TOUCH_UPDATE, point, step_ms) for point in points[1:]]
        last_type, last_point, _ = steps[-1]
        steps[-1] = (last_type, last_point, max(hold_ms, 1))
        if release is not None:
            steps.append((RELEASE_EVENTS[release], last_point, 0))
        remaining = iter(steps)

        def next_event():
            step = next(remaining, None)
            if step is None:
                self.reply(request_id, len(steps))
                return False
            event_type, (x, y), delay_ms = step
            self.send_touch(event_type, x, y)
            GLib.timeout_add(delay_ms, next_event)
            return False
        next_event()

    def release_touch(self, request_id, kind, point):
        """Lift (or cancel) a finger left down by touch(release=None)."""
        self.send_touch(RELEASE_EVENTS[kind], *point)
        self.reply(request_id, True)

    # quit
    def quit(self, request_id):
        self.window.destroy()
        # Let WebKit tell its web process to go before the loop stops.
        GLib.timeout_add(200, self.finish_quit, request_id)

    def finish_quit(self, request_id):
        self.reply(request_id, True)
        Gtk.main_quit()
        return False

    # dispatch
    def handle(self, line):
        request = json.loads(line)
        request_id, command = request["id"], request["cmd"]
        try:
            if command == "load":
                self.load(request_id, request["url"])
            elif command == "eval":
                self.evaluate(request_id, request["expr"])
            elif command == "touch":
                self.touch(request_id, request["points"], request["step_ms"], request["hold_ms"],
                           request["release"])
            elif command == "release":
                self.release_touch(request_id, request["kind"], request["point"])
            elif command == "quit":
                self.quit(request_id)
            else:
                self.reply(request_id, error=f"unknown command {command!r}")
        except Exception as error:  # a bad request must not take the browser down
            self.reply(request_id, error=f"{type(error).__name__}: {error}")


def main():
    width, height = int(sys.argv[1]), int(sys.argv[2])
    host = Host(width, height)
    stdin = GLib.IOChannel.unix_new(sys.stdin.fileno())
    unread = bytearray()

    def on_stdin(channel, condition):
        # os.read, not readline: a buffered reader could hide a second line from the watch.
        chunk = os.read(sys.stdin.fileno(), 65536) if condition & GLib.IOCondition.IN else b""
        if not chunk:
            Gtk.main_quit()  # the driver went away
            return False
        unread.extend(chunk)
        while b"\n" in unread:
            line, _, rest = bytes(unread).partition(b"\n")
            unread[:] = rest
            host.handle(line.decode())
        return True
    GLib.io_add_watch(stdin, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP,
                      on_stdin)
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    Gtk.main()


if __name__ == "__main__":
    main()
