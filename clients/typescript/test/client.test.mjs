// Every method against a real `mnemo serve` (started by clients/with-server.sh),
// each answer validated against the server's OpenAPI document.
import assert from "node:assert/strict";
import test from "node:test";
import { Mnemo, MnemoError, VERSION } from "../dist/index.js";
import { named, routeSchema, validate } from "./openapi.mjs";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests with clients/with-server.sh (npm test does)`);
  return v;
};
const baseUrl = env("MNEMO_TEST_URL");
const admin = new Mnemo({ baseUrl, apiKey: env("MNEMO_TEST_ADMIN_KEY"), namespace: "client-a" });
const reader = new Mnemo({ baseUrl, apiKey: env("MNEMO_TEST_READ_KEY") });
const other = new Mnemo({ baseUrl, apiKey: env("MNEMO_TEST_OTHER_KEY") });

function conforms(value, schema) {
  assert.deepEqual(validate(value, schema), []);
}

async function rejects(promise, code, status) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof MnemoError, `want a MnemoError, got ${e}`);
    assert.equal(e.code, code, e.message);
    if (status !== undefined) assert.equal(e.status, status);
    assert.ok(e.message.length > 0);
    return true;
  });
}

test("the version is the server's", () => {
  const server = process.env.MNEMO_SERVER_VERSION; // `mnemo --version` of the server under test
  assert.ok(server, "MNEMO_SERVER_VERSION is set by with-server.sh");
  assert.equal(VERSION, server);
  assert.equal(Mnemo.version, server);
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8"));
  assert.equal(pkg.version, server);
});

test("the README example runs", async () => {
  const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  const dist = new URL("../dist/index.js", import.meta.url).href;
  const code = readme
    .match(/```ts\n([\s\S]*?)```/)[1]
    .replace('from "mnemo-client"', `from ${JSON.stringify(dist)}`)
    .replace('"http://127.0.0.1:7077"', JSON.stringify(baseUrl))
    .replace('"team-a"', '"client-a"');
  const file = join(mkdtempSync(join(tmpdir(), "mnemo-readme-")), "example.mjs");
  writeFileSync(file, code);
  const logged = [];
  const log = console.log;
  process.env.MNEMO_API_KEY = env("MNEMO_TEST_ADMIN_KEY");
  console.log = (...a) => logged.push(a.join(" "));
  try {
    await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
    delete process.env.MNEMO_API_KEY;
    rmSync(dirname(file), { recursive: true, force: true });
  }
  assert.ok(logged.some((l) => l.includes("72 hours")), logged.join("\n"));
});

test("ready", async () => {
  assert.equal(await admin.ready(), true);
});

test("remember, get, update, forget, restore, history", async () => {
  const w = await admin.remember({ text: "The uplink budget is 200 W for night passes", importance: 0.8, scope: "/ops/uplink", tags: ["power"] });
  conforms(w, routeSchema("POST", "/v1/records", 201));
  assert.equal(w.text, "The uplink budget is 200 W for night passes");
  assert.equal(w.importance, 0.8);
  assert.equal(w.namespace, "client-a");
  assert.equal(w.merged ?? false, false);

  const again = await admin.remember({ text: "The uplink budget is 200 W for night passes", importance: 0.8, scope: "/ops/uplink" });
  assert.equal(again.merged, true, "a near-duplicate is merged");
  assert.equal(again.id, w.id);
  const kept = await admin.remember({ text: "The uplink budget is 200 W for night passes", scope: "/ops/uplink", no_dedup: true });
  assert.notEqual(kept.id, w.id);

  const got = await admin.get(w.id);
  conforms(got, named("Record"));
  assert.equal(got.id, w.id);

  const upd = await admin.update(w.id, { importance: 0.95, tags: ["power", "rf"] });
  conforms(upd, named("Record"));
  assert.equal(upd.importance, 0.95);
  assert.deepEqual(upd.tags, ["power", "rf"]);

  const gone = await admin.forget(w.id);
  assert.ok(gone.deleted_at, "a forgotten record has deleted_at");
  await rejects(admin.update(w.id, { importance: 0.5 }), "conflict", 409);
  const back = await admin.restore(w.id);
  assert.equal(back.deleted_at, undefined);

  const revs = await admin.history(w.id);
  conforms(revs, routeSchema("GET", "/v1/records/{id}/history", 200));
  const actions = revs.map((r) => r.action);
  for (const a of ["create", "update", "forget", "restore"]) assert.ok(actions.includes(a), `${a} in ${actions}`);
});

test("ids chosen by the caller, path escaping", async () => {
  const w = await admin.remember({ id: "doc:ops/runbook.v1", text: "Runbook: restart the ground station modem first" });
  assert.equal(w.id, "doc:ops/runbook.v1");
  assert.equal((await admin.get("doc:ops/runbook.v1")).text, "Runbook: restart the ground station modem first");
});

test("rememberBatch, list pages and records", async () => {
  const texts = [
    "Antenna pointing drifts after firmware updates",
    "Battery heaters switch on below minus ten degrees",
    "Gyroscope calibration runs every Sunday night",
    "Thruster valves were replaced during the spring overhaul",
    "Radiator panels face away from the sun at noon",
    "Transponder keys rotate on the first of each month",
    "Telemetry archives move to cold storage after ninety days",
  ];
  const records = texts.map((text) => ({ text, tags: ["paging"] }));
  const b = await admin.rememberBatch({ records: records.slice(0, 4), no_dedup: true });
  conforms(b, named("BatchResponse"));
  assert.equal(b.ids.length, 4);
  const b2 = await admin.rememberBatch(records.slice(4));
  assert.equal(b2.ids.length, 3);
  assert.deepEqual(b2.merged, [false, false, false]);

  const sizes = [];
  const seen = new Set();
  for await (const page of admin.list({ tag: "paging", limit: 3 })) {
    conforms({ records: page.records, ...(page.next ? { next: page.next } : {}) }, named("ListResponse"));
    sizes.push(page.records.length);
    for (const r of page.records) seen.add(r.id);
  }
  assert.deepEqual(sizes, [3, 3, 1]);
  assert.equal(seen.size, 7);
  for (const id of [...b.ids, ...b2.ids]) assert.ok(seen.has(id));

  const ids = [];
  for await (const r of admin.list({ tag: ["paging"], limit: 2 }).records()) ids.push(r.id);
  assert.equal(ids.length, 7);
  assert.equal(new Set(ids).size, 7);

  const one = await admin.listPage({ tag: "paging", limit: 5 });
  assert.equal(one.records.length, 5);
  assert.ok(one.next);
  const rest = await admin.listPage({ tag: "paging", limit: 5, after: one.next });
  assert.equal(rest.records.length, 2);
  assert.equal(rest.next, undefined);

  // Filters are sent as query parameters.
  const since = new Date(Date.now() - 3600_000);
  const facts = await admin.listPage({ kind: "fact", since, limit: 1000 });
  assert.ok(facts.records.length >= 7);
  await rejects(admin.listPage({ since: "yesterday" }), "invalid", 400);
});

test("recall: hits with why, min_relevance", async () => {
  await admin.remember({ text: "GDPR breach notification is due within 72 hours", scope: "/regulations/gdpr", importance: 0.9 });
  const r = await admin.recall({ query: "GDPR breach notification deadline", k: 5 });
  conforms(r, named("RecallResult"));
  assert.ok(r.retrieval_id);
  assert.ok(r.hits.length >= 1);
  const top = r.hits[0];
  assert.match(top.text, /GDPR/);
  assert.ok(top.why, "every hit says why it passed the floor");
  assert.equal(typeof top.why.evidence, "string");
  assert.equal(typeof top.why.relevance, "number");

  const all = await admin.recall({ query: "GDPR breach notification deadline", k: 50, min_relevance: 0, filters: { scope_prefix: "/regulations" } });
  assert.ok(all.hits.every((h) => h.scope.startsWith("/regulations")));
  await rejects(admin.recall({ query: "x", min_relevance: 2 }), "invalid", 400);
});

test("digest: markdown for a prompt, within the budget", async () => {
  await admin.remember({ text: "We notify the DPO first, then legal", kind: "decision", decision: { title: "Breach escalation order", alternatives: [{ option: "Legal first", reason: "slower" }] } });
  const d = await admin.digest({ task_description: "handle a GDPR data breach notification", token_budget: 400 });
  conforms(d, named("Digest"));
  assert.equal(d.budget, 400);
  assert.ok(d.used_tokens <= 400);
  assert.match(d.markdown, /72 hours|DPO/);
  assert.ok(d.entries.length >= 1);
  assert.ok(d.entries.every((e) => e.why), "every entry says why");
  const strict = await admin.digest({ task_description: "handle a GDPR data breach notification", min_relevance: 0.99, scope: "domain" });
  assert.ok(strict.entries === undefined || strict.entries === null || strict.entries.length <= d.entries.length);
  await rejects(admin.digest({ task_description: "x", token_budget: -1 }), "invalid", 400);
});

test("handoff", async () => {
  const h = await admin.handoff({ budget: 500 });
  conforms(h, named("Handoff"));
  assert.equal(typeof h.markdown, "string");
  assert.ok(h.used_tokens <= 500);
  const since = new Date(Date.now() - 86400_000).toISOString();
  conforms(await admin.handoff({ from: "kim", since }), named("Handoff"));
});

test("corrections and their triples", async () => {
  const missed = await admin.remember({ text: "Ground station Svalbard covers night passes when Inuvik is down" });
  const r = await admin.recall({ query: "which ground station for the night pass", k: 3 });
  await admin.remember({
    text: "Operator corrected the plan: Svalbard was missing",
    kind: "correction",
    provenance: [`record:${missed.id}`, "operator:kim"],
    correction: { retrieval_id: r.retrieval_id, missing_context: true, category: "coverage", outcome: "modified" },
  });
  const rep = await admin.corrections({ by: "day" });
  conforms(rep, named("CorrectionReport"));
  assert.equal(rep.bucket, "day");
  assert.ok(rep.totals.corrections >= 1);
  assert.ok(rep.totals.missing_context >= 1);
  // The retrieval log is written in the background: wait for the retrieval.
  let triples = [];
  for (let i = 0; i < 100 && triples.length === 0; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 50));
    triples = [];
    for await (const t of admin.correctionTriples({ since: new Date(Date.now() - 86400_000) })) triples.push(t);
  }
  assert.equal(triples.length, 1);
  assert.deepEqual(triples[0].missed, [missed.id]);
  assert.equal(triples[0].retrieval_id, r.retrieval_id);
  await rejects(admin.corrections({ by: "year" }), "invalid", 400);
});

test("export streams, import takes a stream", async () => {
  const exported = [];
  for await (const rec of admin.exportRecords()) exported.push(rec);
  assert.ok(exported.length >= 10);
  for (const rec of exported.slice(0, 3)) conforms(rec, named("Record"));
  const lines = [];
  for await (const line of admin.exportLines()) lines.push(line);
  assert.equal(lines.length, exported.length);

  const b = admin.withNamespace("client-b");
  assert.equal(b.namespace, "client-b");
  const res = await b.importRecords(admin.exportRecords());
  conforms(res, named("ImportResult"));
  assert.equal(res.read, exported.length);
  assert.equal(res.imported, exported.length);
  const again = await b.importRecords(lines.join("\n") + "\n");
  assert.equal(again.skipped, exported.length);
  assert.equal(again.imported, 0);
  const fromBytes = await b.importRecords(new TextEncoder().encode(lines[0] + "\n"));
  assert.equal(fromBytes.skipped, 1);
  const fromStream = await b.importRecords(new Blob([lines[1] + "\n"]).stream());
  assert.equal(fromStream.skipped, 1);
  const fromArray = await b.importRecords([exported[2]]);
  assert.equal(fromArray.skipped, 1);
  const copy = await b.get(exported[0].id);
  assert.equal(copy.text, exported[0].text);
  assert.equal(copy.namespace, "client-b");
  await rejects(b.importRecords("{not json\n"), "invalid", 400);
});

test("expire, purge, tune, tuning, rollback", async () => {
  const ex = await admin.expire({ dry_run: true, max_importance: 0.2, idle_days: 30 });
  conforms(ex, named("ExpireResult"));
  assert.equal(ex.dry_run, true);
  const c = await admin.consolidate({ dry_run: true });
  conforms(c, named("ConsolidateResult"));
  assert.equal(c.dry_run, true);
  const p = await admin.purge(365);
  conforms(p, routeSchema("POST", "/v1/purge", 200));
  assert.equal(p.purged, 0);
  await rejects(admin.purge({ older_than_days: 0 }), "invalid", 400);
  const t = await admin.tune({ dry_run: true });
  conforms(t, named("TuneResult"));
  assert.equal(t.accepted, false);
  assert.ok(t.reason);
  conforms(await admin.tuning(), named("Tuning"));
  const rb = await admin.rollbackTuning(0);
  conforms(rb, named("Tuning"));
  assert.equal(rb.active, 0);
});

test("threads and episodes", async () => {
  const at = Date.now() - 3600_000;
  for (const [i, text] of ["Kim: the modem at Inuvik dropped again", "Lee: switching the pass to Svalbard", "Kim: Svalbard confirmed, pass at 02:10"].entries()) {
    await admin.remember({ text, thread: "shift-7", at: new Date(at + i * 60_000).toISOString(), no_dedup: true });
  }
  const ts = await admin.threads();
  conforms(ts, routeSchema("GET", "/v1/threads", 200));
  assert.ok(ts.some((t) => t.name === "shift-7" && t.records === 3));
  const ep = await admin.summarize({ thread: "shift-7", budget: 100 });
  conforms(ep, routeSchema("POST", "/v1/episodes", 201));
  assert.equal(ep.record.kind, "episode");
  assert.equal(ep.created, true);
  await rejects(admin.summarize({ thread: "no-such-thread" }), "not_found");
});

test("principles", async () => {
  const p = await admin.remember({ kind: "principle", text: "Prefer boring technology for the ground segment." });
  const d = await admin.remember({ kind: "decision", text: "Keep the pass scheduler on cron.", decision: { title: "Cron scheduler", principles: [p.id] } });
  const ps = await admin.principles();
  conforms(ps, routeSchema("GET", "/v1/principles", 200));
  const got = ps.find((x) => x.id === p.id);
  assert.ok(got && got.decisions.some((x) => x.id === d.id && x.cites === "id"));
  await rejects(admin.remember({ kind: "decision", text: "x", decision: { principles: ["01NOSUCHPRINCIPLE"] } }), "invalid", 400);
});

test("error codes", async () => {
  await rejects(admin.get("no-such-record"), "not_found", 404);
  await rejects(admin.update("no-such-record", { importance: 0.5 }), "not_found", 404);
  await rejects(admin.remember({ text: "x", importance: 2 }), "invalid", 400);
  await rejects(admin.remember({ text: "x", bogus: 1 }), "invalid", 400);
  await rejects(admin.remember({ text: "x".repeat(70_000) }), "too_large", 413);
  await rejects(admin.rememberBatch([]), "invalid", 400);
  // The client always sends the right media type; a fetch that drops it shows the server's code.
  const bare = new Mnemo({
    baseUrl,
    apiKey: env("MNEMO_TEST_ADMIN_KEY"),
    namespace: "client-a",
    fetch: (url, init) => {
      const h = new Headers(init.headers);
      h.delete("Content-Type");
      return fetch(url, { ...init, headers: h });
    },
  });
  await rejects(bare.remember({ text: "x" }), "unsupported_media_type", 415);
  const e = await admin.get("no-such-record").catch((x) => x);
  assert.equal(e.name, "MnemoError");
  assert.ok(e instanceof Error);
});

test("a keyed namespace: keys, roles, namespaces", async () => {
  const mine = await admin.remember({ text: "Namespace client-a holds the launch checklist" });
  // No key, a wrong key: unauthorized.
  await rejects(new Mnemo({ baseUrl, namespace: "client-a" }).get(mine.id), "unauthorized", 401);
  await rejects(new Mnemo({ baseUrl, apiKey: "mnemo_wrong", namespace: "client-a" }).list().records()[Symbol.asyncIterator]().next(), "unauthorized", 401);
  // The admin key has two namespaces: without a namespace it acts in "default", which it is not bound to.
  await rejects(new Mnemo({ baseUrl, apiKey: env("MNEMO_TEST_ADMIN_KEY") }).get(mine.id), "forbidden", 403);
  // The read key's only namespace is client-a: it reads there, and cannot write.
  assert.equal((await reader.get(mine.id)).text, mine.text);
  assert.ok((await reader.recall({ query: "launch checklist" })).hits.some((h) => h.id === mine.id));
  await rejects(reader.remember({ text: "a read key cannot write" }), "forbidden", 403);
  await rejects(reader.forget(mine.id), "forbidden", 403);
  await rejects(reader.correctionTriples()[Symbol.asyncIterator]().next(), "forbidden", 403);
  // Another key's namespace is invisible, and closed to it.
  await rejects(other.get(mine.id), "not_found", 404);
  await rejects(other.withNamespace("client-a").get(mine.id), "forbidden", 403);
  const theirs = await other.remember({ text: "Namespace client-c holds the payload manual" });
  assert.equal(theirs.namespace, "client-c");
  await rejects(admin.get(theirs.id), "not_found", 404);
  for await (const rec of other.exportRecords()) assert.equal(rec.namespace, "client-c");
});

test("a bad base URL", () => {
  assert.throws(() => new Mnemo({ baseUrl: "ftp://x" }), MnemoError);
  assert.throws(() => new Mnemo({ baseUrl: "not a url" }), MnemoError);
});
