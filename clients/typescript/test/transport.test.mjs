// Retries, timeouts, cancellation and cut streams: against a small local
// HTTP server that answers as told, and against a real rate-limited
// `mnemo serve` (--rate 1/s --burst 1, started by clients/with-server.sh).
import assert from "node:assert/strict";
import http from "node:http";
import test from "node:test";
import { Mnemo, MnemoError } from "../dist/index.js";

/** Starts a server whose handler answers the nth request; returns its URL, the requests seen and a close function. */
async function stub(handler) {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, at: Date.now() });
      handler(seen.length, req, res, body);
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    seen,
    close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }),
  };
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

const rateLimited = { error: { code: "rate_limited", message: "too many requests" } };
const unavailable = { error: { code: "unavailable", message: "the store cannot take writes" } };

test("429 with Retry-After: waits that long, then succeeds", async () => {
  const s = await stub((n, req, res) => (n === 1 ? json(res, 429, rateLimited, { "Retry-After": "1" }) : json(res, 200, { id: "a", text: "ok" })));
  try {
    const m = new Mnemo({ baseUrl: s.url, retryDelay: 1 });
    const rec = await m.get("a");
    assert.equal(rec.text, "ok");
    assert.equal(s.seen.length, 2);
    assert.ok(s.seen[1].at - s.seen[0].at >= 950, `waited ${s.seen[1].at - s.seen[0].at} ms`);
  } finally {
    await s.close();
  }
});

test("503 without Retry-After: exponential backoff, the body is sent again", async () => {
  const s = await stub((n, req, res) => (n <= 2 ? json(res, 503, unavailable) : json(res, 201, { id: "b", text: "again", merged: false })));
  try {
    const m = new Mnemo({ baseUrl: s.url, retryDelay: 20 });
    const w = await m.remember({ text: "again" });
    assert.equal(w.id, "b");
    assert.equal(s.seen.length, 3);
    for (const r of s.seen) {
      assert.equal(r.body, JSON.stringify({ text: "again" }));
      assert.equal(r.headers["content-type"], "application/json");
    }
  } finally {
    await s.close();
  }
});

test("retries run out: the last error, with its code, status and Retry-After", async () => {
  const s = await stub((n, req, res) => json(res, 429, rateLimited, { "Retry-After": "0" }));
  try {
    const m = new Mnemo({ baseUrl: s.url, maxRetries: 2 });
    await assert.rejects(m.get("x"), (e) => e instanceof MnemoError && e.code === "rate_limited" && e.status === 429 && e.retryAfter === 0);
    assert.equal(s.seen.length, 3);
  } finally {
    await s.close();
  }
});

test("a Retry-After beyond maxRetryDelay is not waited for; maxRetries 0 never retries", async () => {
  const s = await stub((n, req, res) => json(res, 503, unavailable, { "Retry-After": "120" }));
  try {
    const t0 = Date.now();
    await assert.rejects(new Mnemo({ baseUrl: s.url, maxRetryDelay: 5000 }).get("x"), (e) => e.code === "unavailable" && e.retryAfter === 120);
    assert.ok(Date.now() - t0 < 2000);
    assert.equal(s.seen.length, 1);
    await assert.rejects(new Mnemo({ baseUrl: s.url, maxRetries: 0 }).get("x"), (e) => e.code === "unavailable");
    assert.equal(s.seen.length, 2);
  } finally {
    await s.close();
  }
});

test("other errors are not retried; an answer without a JSON error gets the status's code", async () => {
  const s = await stub((n, req, res) => {
    if (req.url.endsWith("/gone")) return json(res, 404, { error: { code: "not_found", message: "no record gone" } });
    res.writeHead(502, { "Content-Type": "text/html" });
    res.end("<html>bad gateway</html>");
  });
  try {
    const m = new Mnemo({ baseUrl: s.url });
    await assert.rejects(m.get("gone"), (e) => e.code === "not_found" && e.status === 404 && e.message === "no record gone");
    await assert.rejects(m.get("proxy"), (e) => e.code === "internal" && e.status === 502);
    assert.equal(s.seen.length, 2);
  } finally {
    await s.close();
  }
});

test("headers: key, namespace, media types", async () => {
  const s = await stub((n, req, res) => json(res, 200, { read: 1, imported: 1, skipped: 0 }));
  try {
    const m = new Mnemo({ baseUrl: s.url + "/", apiKey: "mnemo_k", namespace: "team-a", headers: { "X-Trace": "t1" } });
    await m.importRecords([{ id: "r1", text: "one" }, '{"id":"r2","text":"two"}']);
    const r = s.seen[0];
    assert.equal(r.url, "/v1/import");
    assert.equal(r.headers.authorization, "Bearer mnemo_k");
    assert.equal(r.headers["mnemo-namespace"], "team-a");
    assert.equal(r.headers["content-type"], "application/x-ndjson");
    assert.equal(r.headers["x-trace"], "t1");
    assert.equal(r.body, '{"id":"r1","text":"one"}\n{"id":"r2","text":"two"}\n');
    await m.withNamespace("team-b").listPage({ kind: ["fact", "decision"], all: true, limit: 5, scope: "/a b" });
    assert.equal(s.seen[1].headers["mnemo-namespace"], "team-b");
    assert.equal(s.seen[1].url, "/v1/records?kind=fact&kind=decision&all=true&limit=5&scope=%2Fa+b");
    assert.equal(s.seen[1].headers["content-type"], undefined);
  } finally {
    await s.close();
  }
});

test("timeout: a slow answer is a MnemoError timeout", async () => {
  const s = await stub((n, req, res) => setTimeout(() => json(res, 200, {}), 1000));
  try {
    const m = new Mnemo({ baseUrl: s.url, timeout: 100 });
    const t0 = Date.now();
    await assert.rejects(m.get("x"), (e) => e instanceof MnemoError && e.code === "timeout");
    assert.ok(Date.now() - t0 < 900);
    // A call's own timeout overrides the client's.
    await assert.rejects(new Mnemo({ baseUrl: s.url }).get("x", { timeout: 50 }), (e) => e.code === "timeout");
  } finally {
    await s.close();
  }
});

test("AbortSignal: cancels a request and a retry's wait with the signal's reason", async () => {
  const s = await stub((n, req, res) => (req.url.endsWith("/slow") ? setTimeout(() => json(res, 200, {}), 1000) : json(res, 429, rateLimited, { "Retry-After": "5" })));
  try {
    const m = new Mnemo({ baseUrl: s.url });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(m.get("slow", { signal: ac.signal }), (e) => e.name === "AbortError");
    const ac2 = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac2.abort(new Error("stop")), 100);
    await assert.rejects(m.get("limited", { signal: ac2.signal }), (e) => e.message === "stop");
    assert.ok(Date.now() - t0 < 2000, "the 5 s Retry-After wait was cancelled");
    await assert.rejects(m.get("x", { signal: AbortSignal.abort() }), (e) => e.name === "AbortError");
  } finally {
    await s.close();
  }
});

test("an export cut off midway is an error, not a short export", async () => {
  const s = await stub((n, req, res) => {
    res.writeHead(200, { "Content-Type": "application/x-ndjson", Trailer: "Mnemo-Record-Count" });
    res.write('{"id":"a","namespace":"n","layer":"domain","kind":"fact","scope":"/","text":"one"}\n');
    res.write('{"id":"b","namespace":"n","lay');
    setTimeout(() => res.destroy(), 20);
  });
  try {
    const m = new Mnemo({ baseUrl: s.url });
    const got = [];
    await assert.rejects(
      (async () => {
        for await (const r of m.exportRecords()) got.push(r.id);
      })(),
      (e) => e instanceof MnemoError && e.code === "network",
    );
    assert.deepEqual(got, ["a"]);
  } finally {
    await s.close();
  }
});

test("an export stream can be abandoned and cancelled", async () => {
  const s = await stub((n, req, res) => {
    res.writeHead(200, { "Content-Type": "application/x-ndjson" });
    for (let i = 0; i < 100; i++) res.write(JSON.stringify({ id: `r${i}`, text: "x" }) + "\n");
    // never ends by itself
  });
  try {
    const m = new Mnemo({ baseUrl: s.url, timeout: 200 });
    let n = 0;
    for await (const r of m.exportRecords()) {
      if (++n === 3) break;
      assert.ok(r.id);
    }
    assert.equal(n, 3);
    const ac = new AbortController();
    const it = m.exportLines({ signal: ac.signal });
    assert.ok((await it.next()).value);
    // The timeout bounds the start of a stream, not its length.
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    let err;
    try {
      for (;;) {
        const x = await it.next();
        if (x.done) break;
      }
    } catch (e) {
      err = e;
    }
    assert.equal(err?.name, "AbortError");
  } finally {
    await s.close();
  }
});

test("no server: a network error", async () => {
  const s = await stub(() => {});
  const url = s.url;
  await s.close();
  await assert.rejects(new Mnemo({ baseUrl: url }).get("x"), (e) => e instanceof MnemoError && e.code === "network" && e.status === 0);
});

test("a real rate-limited server: 429 with Retry-After, retried", async () => {
  const baseUrl = process.env.MNEMO_TEST_RATE_URL;
  assert.ok(baseUrl, "MNEMO_TEST_RATE_URL is set by clients/with-server.sh");
  const noRetry = new Mnemo({ baseUrl, maxRetries: 0 });
  await noRetry.listPage().catch(() => {});
  const e = await noRetry.listPage().catch((x) => x);
  assert.ok(e instanceof MnemoError, `want a 429, got ${e}`);
  assert.equal(e.code, "rate_limited");
  assert.equal(e.status, 429);
  assert.ok(e.retryAfter >= 1);
  const m = new Mnemo({ baseUrl });
  const t0 = Date.now();
  for (let i = 0; i < 3; i++) assert.ok(Array.isArray((await m.listPage()).records));
  assert.ok(Date.now() - t0 >= 900, "the calls waited for the rate limit");
});
