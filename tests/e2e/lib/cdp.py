"""A small client of the Chrome DevTools Protocol (Debian's python3-websocket), enough to drive
Debian's headless chromium through the review pages: start it on a free debugging port,
navigate, evaluate JavaScript, type keys, take screenshots. One page, commands answered in
order; events are read and dropped."""
import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

import websocket


class CdpError(RuntimeError):
    pass


class Browser:
    def __init__(self, binary="/usr/bin/chromium"):
        self.profile = tempfile.mkdtemp(prefix="sift-chromium-")
        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--remote-debugging-port=0",
             "--remote-allow-origins=*", "--window-size=1280,900", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.time() + 60
        lines = []
        while port is None:
            if time.time() > deadline or self.proc.poll() is not None:
                self.close()
                raise CdpError("chromium did not start: " + "".join(lines[-20:]))
            line = self.proc.stderr.readline()
            lines.append(line)
            found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if found:
                port = int(found.group(1))
        self.port = port
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60)
        self.ids = itertools.count(1)
        self.send("Page.enable")
        self.send("Runtime.enable")

    def send(self, method, **params):
        """Runs one command; returns its result."""
        message_id = next(self.ids)
        self.ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") != message_id:
                continue  # an event
            if "error" in message:
                raise CdpError(f"{method}: {message['error']}")
            return message.get("result", {})

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise CdpError(f"{expression[:80]}: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")

    def wait_for(self, expression, what, timeout=30):
        """Polls until the expression is truthy; returns its value."""
        deadline = time.time() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except CdpError:
                value = None  # the page is navigating
            if value:
                return value
            if time.time() > deadline:
                raise CdpError(f"timed out waiting for {what}: {expression}")
            time.sleep(0.05)

    def navigate(self, url):
        self.send("Page.navigate", url=url)
        self.wait_for(f"document.readyState === 'complete' && location.href.startsWith({json.dumps(url.split('?')[0])})",
                      f"loading {url}")

    def key(self, key):
        """Presses and releases one printable key, as a keyboard would."""
        code = f"Key{key.upper()}" if key.isalpha() else ""
        common = dict(key=key, code=code, windowsVirtualKeyCode=ord(key.upper()))
        self.send("Input.dispatchKeyEvent", type="keyDown", text=key, **common)
        self.send("Input.dispatchKeyEvent", type="keyUp", **common)

    def type_text(self, text):
        self.send("Input.insertText", text=text)

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def clear_cookies(self):
        self.send("Network.clearBrowserCookies")

    def close(self):
        try:
            if getattr(self, "ws", None):
                self.ws.close()
        finally:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
