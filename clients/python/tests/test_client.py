"""Every method against a real `mnemo serve` (started by clients/with-server.sh),
each answer validated against the server's OpenAPI document."""

import contextlib
import datetime as dt
import io
import os
import re
import time
import unittest

import support
from support import REPO, env, named, route_schema, validate

from mnemo_client import Mnemo, MnemoError, __version__


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.url = env("MNEMO_TEST_URL")
        cls.admin = Mnemo(base_url=cls.url, api_key=env("MNEMO_TEST_ADMIN_KEY"), namespace="client-a")
        cls.reader = Mnemo(base_url=cls.url, api_key=env("MNEMO_TEST_READ_KEY"))
        cls.other = Mnemo(base_url=cls.url, api_key=env("MNEMO_TEST_OTHER_KEY"))

    def conforms(self, value, schema):
        self.assertEqual(validate(value, schema), [])

    def raises(self, code, status=None):
        test = self

        class Ctx:
            def __enter__(self):
                return self

            def __exit__(self, typ, e, tb):
                test.assertIsNotNone(e, f"want MnemoError {code}")
                test.assertIsInstance(e, MnemoError)
                test.assertEqual(e.code, code, str(e))
                if status is not None:
                    test.assertEqual(e.status, status)
                test.assertTrue(e.message)
                self.error = e
                return True

        return Ctx()


class Version(unittest.TestCase):
    def test_versioned_with_the_server(self):
        server = os.environ["MNEMO_SERVER_VERSION"]  # `mnemo --version` of the server under test
        self.assertEqual(__version__, server)
        self.assertEqual(Mnemo.version, server)
        pyproject = (support.HERE.parent / "pyproject.toml").read_text(encoding="utf-8")
        self.assertIn(f'version = "{server}"', pyproject)


class Readme(Base):
    def test_the_readme_example_runs(self):
        readme = (support.HERE.parent / "README.md").read_text(encoding="utf-8")
        code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
        code = code.replace('"http://127.0.0.1:7077"', repr(self.url)).replace('"team-a"', '"client-a"')
        out = io.StringIO()
        os.environ["MNEMO_API_KEY"] = env("MNEMO_TEST_ADMIN_KEY")
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, "README.md", "exec"), {})
        finally:
            del os.environ["MNEMO_API_KEY"]
        self.assertIn("72 hours", out.getvalue())


class Records(Base):
    def test_ready(self):
        self.assertTrue(self.admin.ready())

    def test_remember_get_update_forget_restore_history(self):
        text = "The py uplink budget is 180 W for dawn passes"
        w = self.admin.remember(text=text, importance=0.8, scope="/ops/uplink", tags=["power"])
        self.conforms(w, route_schema("POST", "/v1/records", 201))
        self.assertEqual(w["text"], text)
        self.assertEqual(w["namespace"], "client-a")
        self.assertFalse(w.get("merged", False))
        again = self.admin.remember(text=text, importance=0.8, scope="/ops/uplink")
        self.assertTrue(again["merged"])
        self.assertEqual(again["id"], w["id"])
        kept = self.admin.remember(text, scope="/ops/uplink", no_dedup=True)
        self.assertNotEqual(kept["id"], w["id"])

        got = self.admin.get(w["id"])
        self.conforms(got, named("Record"))
        upd = self.admin.update(w["id"], importance=0.95, tags=["power", "rf"])
        self.assertEqual(upd["importance"], 0.95)
        self.assertEqual(upd["tags"], ["power", "rf"])
        gone = self.admin.forget(w["id"])
        self.assertTrue(gone.get("deleted_at"))
        with self.raises("conflict", 409):
            self.admin.update(w["id"], importance=0.5)
        back = self.admin.restore(w["id"])
        self.assertIsNone(back.get("deleted_at"))
        revs = self.admin.history(w["id"])
        self.conforms(revs, route_schema("GET", "/v1/records/{id}/history", 200))
        actions = [r["action"] for r in revs]
        for a in ("create", "update", "forget", "restore"):
            self.assertIn(a, actions)

    def test_caller_ids_and_path_escaping(self):
        w = self.admin.remember("Py runbook: restart the ground station modem first", id="doc:py/runbook.v1")
        self.assertEqual(w["id"], "doc:py/runbook.v1")
        self.assertEqual(self.admin.get("doc:py/runbook.v1")["text"], w["text"])

    def test_batch_and_pagination(self):
        texts = [
            "Py antenna pointing drifts after firmware updates",
            "Py battery heaters switch on below minus ten degrees",
            "Py gyroscope calibration runs every Sunday night",
            "Py thruster valves were replaced during the spring overhaul",
            "Py radiator panels face away from the sun at noon",
            "Py transponder keys rotate on the first of each month",
            "Py telemetry archives move to cold storage after ninety days",
        ]
        recs = [{"text": t, "tags": ["py-paging"]} for t in texts]
        b = self.admin.remember_batch(recs[:4], no_dedup=True)
        self.conforms(b, named("BatchResponse"))
        self.assertEqual(len(b["ids"]), 4)
        b2 = self.admin.remember_batch(recs[4:])
        self.assertEqual(b2["merged"], [False, False, False])

        sizes, seen = [], set()
        for page in self.admin.list(tag="py-paging", limit=3):
            self.conforms(page, named("ListResponse"))
            sizes.append(len(page["records"]))
            seen.update(r["id"] for r in page["records"])
        self.assertEqual(sizes, [3, 3, 1])
        self.assertEqual(seen, set(b["ids"]) | set(b2["ids"]))
        ids = [r["id"] for r in self.admin.list(tag=["py-paging"], limit=2).records()]
        self.assertEqual(len(ids), 7)
        self.assertEqual(len(set(ids)), 7)
        one = self.admin.list_page(tag="py-paging", limit=5)
        self.assertEqual(len(one["records"]), 5)
        rest = self.admin.list_page(tag="py-paging", limit=5, after=one["next"])
        self.assertEqual(len(rest["records"]), 2)
        self.assertNotIn("next", rest)
        since = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
        self.assertGreaterEqual(len(self.admin.list_page(kind="fact", since=since, limit=1000)["records"]), 7)
        with self.raises("invalid", 400):
            self.admin.list_page(since="yesterday")


class Retrieval(Base):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.admin.remember("Py: GDPR breach notification is due within 72 hours", scope="/regulations/gdpr", importance=0.9)
        cls.admin.remember(
            "Py: we notify the DPO first, then legal",
            kind="decision",
            decision={"title": "Breach escalation order", "alternatives": [{"option": "Legal first", "reason": "slower"}]},
        )

    def test_recall(self):
        r = self.admin.recall("GDPR breach notification deadline", k=5)
        self.conforms(r, named("RecallResult"))
        self.assertTrue(r["retrieval_id"])
        top = r["hits"][0]
        self.assertIn("GDPR", top["text"])
        self.assertIsInstance(top["why"]["evidence"], str)
        flt = self.admin.recall("GDPR breach", k=50, min_relevance=0, filters={"scope_prefix": "/regulations"})
        self.assertTrue(all(h["scope"].startswith("/regulations") for h in flt["hits"]))
        with self.raises("invalid", 400):
            self.admin.recall("x", min_relevance=2)

    def test_digest(self):
        d = self.admin.digest("handle a GDPR data breach notification", token_budget=400)
        self.conforms(d, named("Digest"))
        self.assertEqual(d["budget"], 400)
        self.assertLessEqual(d["used_tokens"], 400)
        self.assertRegex(d["markdown"], "72 hours|DPO")
        self.assertTrue(all("why" in e for e in d["entries"]))
        self.conforms(self.admin.digest("handle a breach", scope="domain", min_relevance=0.5, filters={"tags": ["x"]}), named("Digest"))
        with self.raises("invalid", 400):
            self.admin.digest("x", token_budget=-1)

    def test_handoff(self):
        h = self.admin.handoff(budget=500)
        self.conforms(h, named("Handoff"))
        self.assertLessEqual(h["used_tokens"], 500)
        h2 = self.admin.handoff(from_="kim", since=dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=1))
        self.assertEqual(h2["from"], "kim")

    def test_corrections_and_triples(self):
        missed = self.admin.remember("Py: ground station Svalbard covers night passes when Inuvik is down")
        r = self.admin.recall("py which ground station for the night pass", k=3)
        self.admin.remember(
            "Py: operator corrected the plan, Svalbard was missing",
            kind="correction",
            provenance=[f"record:{missed['id']}", "operator:kim"],
            correction={"retrieval_id": r["retrieval_id"], "missing_context": True, "category": "coverage", "class": "omission"},
        )
        rep = self.admin.corrections(by="day")
        self.conforms(rep, named("CorrectionReport"))
        self.assertEqual(rep["bucket"], "day")
        self.assertGreaterEqual(rep["totals"]["missing_context"], 1)
        triples = []
        for _ in range(100):  # the retrieval log is written in the background
            triples = list(self.admin.correction_triples(since=dt.date.today() - dt.timedelta(days=1)))
            if triples:
                break
            time.sleep(0.05)
        self.assertEqual(len(triples), 1)
        self.assertEqual(triples[0]["missed"], [missed["id"]])
        with self.raises("invalid", 400):
            self.admin.corrections(by="year")


class Streams(Base):
    def test_export_and_import(self):
        self.admin.remember("Py: export fixture one about the flight dynamics handbook")
        self.admin.remember("Py: export fixture two about the payload thermal limits")
        exported = list(self.admin.export_records())
        self.assertGreaterEqual(len(exported), 2)
        for rec in exported[:3]:
            self.conforms(rec, named("Record"))
        lines = list(self.admin.export_lines())
        self.assertEqual(len(lines), len(exported))
        buf = io.StringIO()
        self.assertEqual(self.admin.export_to(buf), len(exported))

        b = self.admin.with_namespace("client-b")
        self.assertEqual(b.namespace, "client-b")
        res = b.import_records(self.admin.export_records())
        self.conforms(res, named("ImportResult"))
        self.assertEqual(res["read"], len(exported))
        self.assertEqual(res["imported"], len(exported))
        again = b.import_records(buf.getvalue())
        self.assertEqual(again["skipped"], len(exported))
        self.assertEqual(b.import_records(io.BytesIO(buf.getvalue().encode()))["skipped"], len(exported))
        self.assertEqual(b.import_records(lines[:1])["skipped"], 1)
        self.assertEqual(b.import_records((lines[0] + "\n").encode())["skipped"], 1)
        copy = b.get(exported[0]["id"])
        self.assertEqual(copy["text"], exported[0]["text"])
        self.assertEqual(copy["namespace"], "client-b")
        with self.raises("invalid", 400):
            b.import_records("{not json\n")


class Lifecycle(Base):
    def test_expire_purge_tune(self):
        ex = self.admin.expire(dry_run=True, max_importance=0.2, idle_days=30)
        self.conforms(ex, named("ExpireResult"))
        self.assertTrue(ex["dry_run"])
        c = self.admin.consolidate(dry_run=True)
        self.conforms(c, named("ConsolidateResult"))
        self.assertTrue(c["dry_run"])
        p = self.admin.purge(365)
        self.conforms(p, route_schema("POST", "/v1/purge", 200))
        self.assertEqual(p["purged"], 0)
        with self.raises("invalid", 400):
            self.admin.purge(0)
        t = self.admin.tune(dry_run=True)
        self.conforms(t, named("TuneResult"))
        self.assertFalse(t["accepted"])
        self.assertTrue(t["reason"])
        self.conforms(self.admin.tuning(), named("Tuning"))
        rb = self.admin.rollback_tuning(0)
        self.assertEqual(rb["active"], 0)

    def test_threads_and_episodes(self):
        at = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)
        turns = ["Kim: the py modem at Inuvik dropped again", "Lee: switching the py pass to Svalbard", "Kim: Svalbard confirmed for py"]
        for i, text in enumerate(turns):
            self.admin.remember(text, thread="py-shift", at=at + dt.timedelta(minutes=i), no_dedup=True)
        ts = self.admin.threads()
        self.conforms(ts, route_schema("GET", "/v1/threads", 200))
        self.assertTrue(any(t["name"] == "py-shift" and t["records"] == 3 for t in ts))
        ep = self.admin.summarize("py-shift", budget=100)
        self.conforms(ep, route_schema("POST", "/v1/episodes", 201))
        self.assertEqual(ep["record"]["kind"], "episode")
        with self.raises("not_found"):
            self.admin.summarize("no-such-thread")

    def test_principles(self):
        p = self.admin.remember("Prefer boring technology for the py ground segment.", kind="principle")
        d = self.admin.remember("Keep the py pass scheduler on cron.", kind="decision",
                                decision={"title": "Cron scheduler", "principles": [p["id"]]})
        ps = self.admin.principles()
        self.conforms(ps, route_schema("GET", "/v1/principles", 200))
        got = [x for x in ps if x["id"] == p["id"]]
        self.assertTrue(got and any(x["id"] == d["id"] and x["cites"] == "id" for x in got[0]["decisions"]))
        with self.raises("invalid"):
            self.admin.remember("x", kind="decision", decision={"principles": ["01NOSUCHPRINCIPLE"]})


class Errors(Base):
    def test_error_codes(self):
        with self.raises("not_found", 404):
            self.admin.get("no-such-record")
        with self.raises("invalid", 400):
            self.admin.remember("x", importance=2)
        with self.raises("invalid", 400):
            self.admin.remember("x", bogus=1)
        with self.raises("too_large", 413):
            self.admin.remember("x" * 70000)
        with self.raises("invalid", 400):
            self.admin.remember_batch([])
        # The client always sends the right media type: a raw request shows the server's code.
        bare = Mnemo(self.url, env("MNEMO_TEST_ADMIN_KEY"), "client-a")
        with self.raises("unsupported_media_type", 415):
            bare._json("POST", "/v1/records", raw=b'{"text":"x"}', content_type="text/plain")
        with self.assertRaises(MnemoError):
            Mnemo("ftp://x")

    def test_keyed_namespace(self):
        mine = self.admin.remember("Py: namespace client-a holds the launch checklist")
        with self.raises("unauthorized", 401):
            Mnemo(self.url, namespace="client-a").get(mine["id"])
        with self.raises("unauthorized", 401):
            Mnemo(self.url, api_key="mnemo_wrong", namespace="client-a").list_page()
        with self.raises("forbidden", 403):  # two namespaces and none named: "default", not bound
            Mnemo(self.url, api_key=env("MNEMO_TEST_ADMIN_KEY")).get(mine["id"])
        self.assertEqual(self.reader.get(mine["id"])["text"], mine["text"])
        self.assertTrue(any(h["id"] == mine["id"] for h in self.reader.recall("launch checklist")["hits"]))
        with self.raises("forbidden", 403):
            self.reader.remember("a read key cannot write")
        with self.raises("forbidden", 403):
            self.reader.forget(mine["id"])
        with self.raises("forbidden", 403):
            list(self.reader.correction_triples())
        with self.raises("not_found", 404):
            self.other.get(mine["id"])
        with self.raises("forbidden", 403):
            self.other.with_namespace("client-a").get(mine["id"])
        theirs = self.other.remember("Py: namespace client-c holds the payload manual")
        self.assertEqual(theirs["namespace"], "client-c")
        with self.raises("not_found", 404):
            self.admin.get(theirs["id"])
        self.assertTrue(all(r["namespace"] == "client-c" for r in self.other.export_records()))


if __name__ == "__main__":
    unittest.main()
