"""Retries, timeouts and cut streams: against a small local HTTP server that
answers as told, and against a real rate-limited `mnemo serve`
(--rate 1/s --burst 1, started by clients/with-server.sh)."""

import http.server
import json
import threading
import time
import unittest

import support  # noqa: F401
from support import env

from mnemo_client import Mnemo, MnemoError

RATE_LIMITED = {"error": {"code": "rate_limited", "message": "too many requests"}}
UNAVAILABLE = {"error": {"code": "unavailable", "message": "the store cannot take writes"}}


class Stub:
    """A local server whose handler(n, request) answers the nth request."""

    def __init__(self, handler):
        self.seen = []
        stub = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _any(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                stub.seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body, "at": time.monotonic()})
                handler(len(stub.seen), self)

            do_GET = do_POST = do_PATCH = do_DELETE = _any

            def json(self, status, value, headers=None):
                b = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(b)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(b)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.server.shutdown()
        self.server.server_close()


class Retries(unittest.TestCase):
    def test_429_with_retry_after_waits_then_succeeds(self):
        def h(n, r):
            if n == 1:
                r.json(429, RATE_LIMITED, {"Retry-After": "1"})
            else:
                r.json(200, {"id": "a", "text": "ok"})

        with Stub(h) as s:
            rec = Mnemo(s.url, retry_delay=0.001).get("a")
            self.assertEqual(rec["text"], "ok")
            self.assertEqual(len(s.seen), 2)
            self.assertGreaterEqual(s.seen[1]["at"] - s.seen[0]["at"], 0.95)

    def test_503_backoff_resends_the_body(self):
        def h(n, r):
            if n <= 2:
                r.json(503, UNAVAILABLE)
            else:
                r.json(201, {"id": "b", "text": "again", "merged": False})

        with Stub(h) as s:
            w = Mnemo(s.url, retry_delay=0.02).remember("again", importance=0.5)
            self.assertEqual(w["id"], "b")
            self.assertEqual(len(s.seen), 3)
            for r in s.seen:
                self.assertEqual(json.loads(r["body"]), {"text": "again", "importance": 0.5})
                self.assertEqual(r["headers"]["Content-Type"], "application/json")

    def test_retries_run_out(self):
        with Stub(lambda n, r: r.json(429, RATE_LIMITED, {"Retry-After": "0"})) as s:
            with self.assertRaises(MnemoError) as cm:
                Mnemo(s.url, max_retries=2).get("x")
            e = cm.exception
            self.assertEqual((e.code, e.status, e.retry_after), ("rate_limited", 429, 0))
            self.assertEqual(len(s.seen), 3)

    def test_long_retry_after_is_not_waited_for(self):
        with Stub(lambda n, r: r.json(503, UNAVAILABLE, {"Retry-After": "120"})) as s:
            t0 = time.monotonic()
            with self.assertRaises(MnemoError) as cm:
                Mnemo(s.url, max_retry_delay=5).get("x")
            self.assertEqual(cm.exception.code, "unavailable")
            self.assertEqual(cm.exception.retry_after, 120)
            self.assertLess(time.monotonic() - t0, 2)
            with self.assertRaises(MnemoError):
                Mnemo(s.url, max_retries=0).get("x")
            self.assertEqual(len(s.seen), 2)

    def test_other_errors_are_not_retried(self):
        def h(n, r):
            if r.path.endswith("/gone"):
                r.json(404, {"error": {"code": "not_found", "message": "no record gone"}})
            else:
                b = b"<html>bad gateway</html>"
                r.send_response(502)
                r.send_header("Content-Type", "text/html")
                r.send_header("Content-Length", str(len(b)))
                r.end_headers()
                r.wfile.write(b)

        with Stub(h) as s:
            m = Mnemo(s.url)
            with self.assertRaises(MnemoError) as cm:
                m.get("gone")
            self.assertEqual((cm.exception.code, cm.exception.status, cm.exception.message), ("not_found", 404, "no record gone"))
            with self.assertRaises(MnemoError) as cm:
                m.get("proxy")
            self.assertEqual((cm.exception.code, cm.exception.status), ("internal", 502))
            self.assertEqual(len(s.seen), 2)


class Transport(unittest.TestCase):
    def test_headers_and_query(self):
        with Stub(lambda n, r: r.json(200, {"read": 2, "imported": 2, "skipped": 0, "records": []})) as s:
            m = Mnemo(s.url + "/", api_key="mnemo_k", namespace="team-a", headers={"X-Trace": "t1"})
            m.import_records([{"id": "r1", "text": "one"}, '{"id":"r2","text":"two"}'])
            r = s.seen[0]
            self.assertEqual(r["path"], "/v1/import")
            self.assertEqual(r["headers"]["Authorization"], "Bearer mnemo_k")
            self.assertEqual(r["headers"]["Mnemo-Namespace"], "team-a")
            self.assertEqual(r["headers"]["Content-Type"], "application/x-ndjson")
            self.assertEqual(r["headers"]["X-Trace"], "t1")
            self.assertEqual(r["body"], b'{"id": "r1", "text": "one"}\n{"id":"r2","text":"two"}\n')
            m.with_namespace("team-b").list_page(kind=["fact", "decision"], all=True, limit=5, scope="/a b")
            self.assertEqual(s.seen[1]["headers"]["Mnemo-Namespace"], "team-b")
            self.assertEqual(s.seen[1]["path"], "/v1/records?kind=fact&kind=decision&all=true&limit=5&scope=%2Fa+b")
            self.assertNotIn("Content-Type", s.seen[1]["headers"])

    def test_timeout(self):
        def h(n, r):
            time.sleep(1)
            try:
                r.json(200, {})
            except OSError:
                pass

        with Stub(h) as s:
            t0 = time.monotonic()
            with self.assertRaises(MnemoError) as cm:
                Mnemo(s.url, timeout=0.1).get("x")
            self.assertEqual(cm.exception.code, "timeout")
            self.assertLess(time.monotonic() - t0, 0.9)

    def test_cut_export_is_an_error(self):
        def h(n, r):
            r.send_response(200)
            r.send_header("Content-Type", "application/x-ndjson")
            r.send_header("Transfer-Encoding", "chunked")
            r.end_headers()
            for part in (b'{"id":"a","text":"one"}\n', b'{"id":"b","te'):
                r.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            r.wfile.flush()
            r.close_connection = True

        with Stub(h) as s:
            got = []
            with self.assertRaises(MnemoError) as cm:
                for rec in Mnemo(s.url).export_records():
                    got.append(rec["id"])
            self.assertEqual(cm.exception.code, "network")
            self.assertEqual(got, ["a"])

    def test_no_server(self):
        s = Stub(lambda n, r: None)
        url = s.url
        s.__exit__()
        with self.assertRaises(MnemoError) as cm:
            Mnemo(url).get("x")
        self.assertEqual((cm.exception.code, cm.exception.status), ("network", 0))


class RealRateLimit(unittest.TestCase):
    def test_429_retried(self):
        url = env("MNEMO_TEST_RATE_URL")
        no_retry = Mnemo(url, max_retries=0)
        try:
            no_retry.list_page()
        except MnemoError:
            pass
        with self.assertRaises(MnemoError) as cm:
            no_retry.list_page()
        e = cm.exception
        self.assertEqual((e.code, e.status), ("rate_limited", 429))
        self.assertGreaterEqual(e.retry_after, 1)
        m = Mnemo(url)
        t0 = time.monotonic()
        for _ in range(3):
            self.assertIsInstance(m.list_page()["records"], list)
        self.assertGreaterEqual(time.monotonic() - t0, 0.9)


if __name__ == "__main__":
    unittest.main()
