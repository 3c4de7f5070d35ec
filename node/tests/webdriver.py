"""webdriver: a small W3C WebDriver client over Debian's chromedriver
(package chromium-driver) driving headless chromium, with nothing but the
standard library: open a page, run a script in it, wait for a condition,
click a link, save a screenshot of the whole page."""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'
CHROMIUM = shutil.which('chromium')
DRIVER = shutil.which('chromedriver')


class Error(Exception):
    pass


class Browser:
    def __init__(self, port, width=1400, height=1000):
        self.port = port
        self.prof = tempfile.mkdtemp(prefix='lm-chromium-')
        self.log = open(os.path.join(self.prof, 'driver.log'), 'w')
        self.proc = subprocess.Popen(
            [DRIVER, '--port=%d' % port, '--allowed-ips=127.0.0.1'],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = 'http://127.0.0.1:%d' % port
        self.sid = None
        deadline = time.time() + 20
        while True:
            try:
                if self._call('GET', '/status')['ready']:
                    break
            except (Error, OSError):
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                self.close()
                raise Error('chromedriver did not start')
            time.sleep(0.1)
        args = ['--headless=new', '--no-sandbox', '--disable-gpu',
                '--disable-dev-shm-usage', '--no-first-run',
                '--disable-background-networking',
                '--disable-component-update', '--disable-sync',
                '--disable-extensions', '--hide-scrollbars',
                '--user-data-dir=' + os.path.join(self.prof, 'profile'),
                '--window-size=%d,%d' % (width, height)]
        caps = {'capabilities': {'alwaysMatch': {
            'browserName': 'chrome', 'pageLoadStrategy': 'normal',
            'unhandledPromptBehavior': 'ignore',
            'goog:chromeOptions': {'binary': CHROMIUM, 'args': args}}}}
        self.sid = self._call('POST', '/session', caps)['sessionId']
        self.width = width

    def _call(self, method, path, body=None, timeout=60):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={'Content-Type': 'application/json'})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read() or b'{}')['value']
        except urllib.error.HTTPError as e:
            try:
                v = json.loads(e.read())['value']
            except (ValueError, KeyError):
                v = {'error': str(e), 'message': ''}
            raise Error('%s %s: %s: %s' % (method, path, v.get('error'),
                                           v.get('message', '')[:300]))

    def s(self, method, path, body=None):
        return self._call(method, '/session/%s%s' % (self.sid, path), body)

    def go(self, url):
        self.s('POST', '/url', {'url': url})

    def url(self):
        return self.s('GET', '/url')

    def js(self, script, *args):
        return self.s('POST', '/execute/sync',
                      {'script': script, 'args': list(args)})

    def wait(self, what, script, timeout=30):
        """Poll script (a function body returning a value) until truthy."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            last = self.js(script)
            if last:
                return last
            time.sleep(0.2)
        raise Error('%s: not within %d s (last %r)' % (what, timeout, last))

    def alert(self):
        """The text of an open alert, or None (a page script ran one)."""
        try:
            return self.s('GET', '/alert/text')
        except Error as e:
            if 'no such alert' in str(e):
                return None
            raise

    def click(self, css):
        e = self.s('POST', '/element', {'using': 'css selector',
                                        'value': css})
        self.s('POST', '/element/%s/click' % e[ELEMENT], {})

    def screenshot(self, path, max_height=4000):
        """The whole page: the window grown to the document's height."""
        h = self.js('return Math.max(document.documentElement.scrollHeight,'
                    ' document.body.scrollHeight);')
        h = max(600, min(int(h) + 20, max_height))
        # a window is no taller than the headless screen: capture the
        # page beyond the viewport through the DevTools protocol
        shot = self.s('POST', '/goog/cdp/execute', {
            'cmd': 'Page.captureScreenshot', 'params': {
                'format': 'png', 'captureBeyondViewport': True,
                'clip': {'x': 0, 'y': 0, 'width': self.width,
                         'height': h, 'scale': 1}}})
        png = base64.b64decode(shot['data'])
        with open(path, 'wb') as f:
            f.write(png)
        return len(png)

    def close(self):
        try:
            if self.sid:
                self._call('DELETE', '/session/' + self.sid, timeout=20)
        except (Error, OSError):
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.prof, ignore_errors=True)
