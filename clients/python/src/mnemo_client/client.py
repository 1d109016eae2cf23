"""A client of mnemo's REST API, on the standard library only (urllib)."""

import datetime as _dt
import email.utils
import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import IO, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union, cast

from ._version import __version__
from .errors import MnemoError, code_of_status
from .types import (
    BatchResponse,
    CorrectionReport,
    CorrectionTriple,
    Digest,
    EpisodeResult,
    ExpireResult,
    ConsolidateResult,
    Handoff,
    ImportResult,
    MemoryRecord,
    NewRecord,
    Page,
    Principle,
    PurgeResult,
    RecallResult,
    Revision,
    ThreadInfo,
    TuneResult,
    Tuning,
    WrittenRecord,
)

Time = Union[str, _dt.datetime, _dt.date]
"""An RFC 3339 string, a datetime (naive ones are taken as UTC) or a date."""

ImportSource = Union[str, bytes, bytearray, IO[str], IO[bytes], Iterable[Union[Mapping[str, Any], str, bytes]]]
"""JSONL text or bytes, a file opened in text or binary mode, or records (dicts or JSON lines) in any iterable."""

_UNSET: Any = object()


def _time(t: Time) -> str:
    if isinstance(t, _dt.datetime):
        if t.tzinfo is None:
            t = t.replace(tzinfo=_dt.timezone.utc)
        return t.isoformat().replace("+00:00", "Z")
    if isinstance(t, _dt.date):
        return t.isoformat()
    return t


def _jsonable(v: Any) -> Any:
    if isinstance(v, (_dt.datetime, _dt.date)):
        return _time(v)
    if isinstance(v, Mapping):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def _fields(**kw: Any) -> Dict[str, Any]:
    """Keyword arguments without the unset and None ones."""
    return {k: v for k, v in kw.items() if v is not _UNSET and v is not None}


def _query(q: Mapping[str, Any]) -> str:
    pairs: List[Any] = []
    for k, v in q.items():
        for x in v if isinstance(v, (list, tuple)) else [v]:
            if x is None or x is _UNSET or x == "":
                continue
            if isinstance(x, bool):
                x = "true" if x else "false"
            elif isinstance(x, (_dt.datetime, _dt.date)):
                x = _time(x)
            pairs.append((k, str(x)))
    return urllib.parse.urlencode(pairs)


def _retry_after(headers: Any) -> Optional[float]:
    v = headers.get("Retry-After") if headers is not None else None
    if v is None or not v.strip():
        return None
    v = v.strip()
    if v.isdigit():
        return float(v)
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return max(0.0, (when - _dt.datetime.now(_dt.timezone.utc)).total_seconds())


def _error_of(status: int, reason: str, headers: Any, body: bytes, label: str) -> MnemoError:
    retry_after = _retry_after(headers)
    try:
        e = json.loads(body.decode("utf-8")).get("error")
        if isinstance(e, dict) and isinstance(e.get("code"), str) and e["code"]:
            return MnemoError(e["code"], e.get("message") if isinstance(e.get("message"), str) else "", status, retry_after)
    except (ValueError, AttributeError, UnicodeDecodeError):
        pass
    return MnemoError(code_of_status(status), f"{label}: the server answered {status} {reason}".strip(), status, retry_after)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


_opener = urllib.request.build_opener(_NoRedirect)


class Pages:
    """The pages of a list, fetched one by one as they are iterated.

    ``for page in m.list(kind="decision")`` yields pages (dicts with
    records and, but on the last page, next); ``m.list().records()``
    yields the records.
    """

    def __init__(self, client: "Mnemo", query: Dict[str, Any]) -> None:
        self._client = client
        self._query = query

    def __iter__(self) -> Iterator[Page]:
        q = dict(self._query)
        while True:
            page = self._client.list_page(**q)
            yield page
            if not page.get("next") or not page.get("records"):
                return
            q["after"] = page["next"]

    def records(self) -> Iterator[MemoryRecord]:
        for page in self:
            yield from page.get("records") or []


class Mnemo:
    """A client of one mnemo server's REST API.

    >>> m = Mnemo(base_url="http://127.0.0.1:7077", api_key=None, namespace="team-a")

    api_key is sent as Authorization: Bearer, namespace as Mnemo-Namespace
    (None lets the server choose: the key's only namespace, else default).
    timeout is in seconds for connecting and for each read of an answer
    (None: no limit). Answers 429 and 503 are retried up to max_retries
    times, after the server's Retry-After, or else with exponential backoff
    from retry_delay seconds; a Retry-After longer than max_retry_delay is
    not waited for.
    """

    version = __version__

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        namespace: Optional[str] = None,
        *,
        timeout: Optional[float] = 60.0,
        max_retries: int = 3,
        retry_delay: float = 0.5,
        max_retry_delay: float = 30.0,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        u = urllib.parse.urlsplit(base_url or "")
        if u.scheme not in ("http", "https") or not u.netloc:
            raise MnemoError("invalid", f"base_url {base_url!r} is not http(s)://HOST[:PORT]")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key or None
        self.namespace = namespace or None
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.retry_delay = max(0.0, retry_delay)
        self.max_retry_delay = max(0.0, max_retry_delay)
        self.headers = dict(headers or {})

    def with_namespace(self, namespace: str) -> "Mnemo":
        """A client like this one that acts in namespace."""
        return Mnemo(
            self.base_url,
            self.api_key,
            namespace,
            timeout=self.timeout,
            max_retries=self.max_retries,
            retry_delay=self.retry_delay,
            max_retry_delay=self.max_retry_delay,
            headers=self.headers,
        )

    # ---- records ----

    def remember(self, text: str, **fields: Any) -> WrittenRecord:
        """Stores one record (POST /v1/records); fields are the REST fields
        (kind, scope, importance, decision, thread, at, no_dedup, ...).
        merged is true in the answer when it was merged into a near-duplicate."""
        return cast(WrittenRecord, self._json("POST", "/v1/records", body={"text": text, **fields}))

    def remember_batch(self, records: Sequence[NewRecord], *, no_dedup: bool = False) -> BatchResponse:
        """Stores up to 1000 records in one request (POST /v1/records/batch)."""
        body: Dict[str, Any] = {"records": list(records)}
        if no_dedup:
            body["no_dedup"] = True
        return cast(BatchResponse, self._json("POST", "/v1/records/batch", body=body))

    def get(self, id: str) -> MemoryRecord:
        """Returns one record (GET /v1/records/{id})."""
        return cast(MemoryRecord, self._json("GET", self._record(id)))

    def update(self, id: str, **fields: Any) -> MemoryRecord:
        """Changes fields of a record (PATCH /v1/records/{id})."""
        return cast(MemoryRecord, self._json("PATCH", self._record(id), body=fields))

    def forget(self, id: str) -> MemoryRecord:
        """Forgets a record, restorably (DELETE /v1/records/{id})."""
        return cast(MemoryRecord, self._json("DELETE", self._record(id)))

    def restore(self, id: str) -> MemoryRecord:
        """Restores a forgotten record (POST /v1/records/{id}/restore)."""
        return cast(MemoryRecord, self._json("POST", self._record(id) + "/restore"))

    def history(self, id: str) -> List[Revision]:
        """A record's revisions, oldest first (GET /v1/records/{id}/history)."""
        return cast(List[Revision], self._json("GET", self._record(id) + "/history"))

    def list_page(self, **query: Any) -> Page:
        """One page of records, newest first (GET /v1/records). query: layer,
        kind, scope, component, mission, thread, tag (one or a list),
        criticality, since, until, as_of, as_known_at, outcome, operator, limit,
        after, all."""
        page = cast(Dict[str, Any], self._json("GET", "/v1/records", query=query))
        out: Dict[str, Any] = {"records": page.get("records") or []}
        if page.get("next"):
            out["next"] = page["next"]
        return cast(Page, out)

    def list(self, **query: Any) -> Pages:
        """The records matching query, page by page (one request per page,
        made as the iteration reaches it; limit is the page size)."""
        return Pages(self, query)

    # ---- retrieval ----

    def recall(
        self,
        query: str,
        *,
        k: Optional[int] = None,
        filters: Optional[Mapping[str, Any]] = None,
        preset: Optional[str] = None,
        intent: Optional[str] = None,
        min_relevance: Optional[float] = None,
    ) -> RecallResult:
        """The k best records for a query, each with its score, factors and why (POST /v1/recall)."""
        body = _fields(query=query, k=k, filters=filters, preset=preset, intent=intent, min_relevance=min_relevance)
        return cast(RecallResult, self._json("POST", "/v1/recall", body=body))

    def digest(
        self,
        task: str,
        *,
        token_budget: Optional[int] = None,
        scope: Optional[str] = None,
        filters: Optional[Mapping[str, Any]] = None,
        preset: Optional[str] = None,
        intent: Optional[str] = None,
        min_relevance: Optional[float] = None,
        min_score_ratio: Optional[float] = None,
    ) -> Digest:
        """What an agent should start with for a task, within token_budget
        tokens: markdown is ready for a prompt (POST /v1/digest). Past the
        first eight entries, each must score min_score_ratio of the best
        (unset: the namespace's, default 0.3; 0: fill the budget)."""
        body = _fields(
            task_description=task,
            token_budget=token_budget,
            scope=scope,
            filters=filters,
            preset=preset,
            intent=intent,
            min_relevance=min_relevance,
            min_score_ratio=min_score_ratio,
        )
        return cast(Digest, self._json("POST", "/v1/digest", body=body))

    def handoff(self, *, from_: Optional[str] = None, since: Optional[Time] = None, budget: Optional[int] = None) -> Handoff:
        """The brief for an incoming operator (POST /v1/handoff); from_ is the outgoing operator."""
        body = _fields(since=since, budget=budget)
        if from_ is not None:
            body["from"] = from_
        return cast(Handoff, self._json("POST", "/v1/handoff", body=body))

    # ---- the correction signal and tuning ----

    def corrections(self, *, since: Optional[Time] = None, until: Optional[Time] = None, by: Optional[str] = None) -> CorrectionReport:
        """The correction signal of the namespace (GET /v1/corrections); by: day, week or month."""
        return cast(CorrectionReport, self._json("GET", "/v1/corrections", query=_fields(since=since, until=until, by=by)))

    def correction_triples(
        self, *, since: Optional[Time] = None, until: Optional[Time] = None, by: Optional[str] = None
    ) -> Iterator[CorrectionTriple]:
        """The (query, retrieved, missed) triples, streamed (GET /v1/corrections/triples; admin keys)."""
        q = _fields(since=since, until=until, by=by)
        for line in self._lines("GET", "/v1/corrections/triples", q, "correction triples"):
            yield cast(CorrectionTriple, _parse_line(line))

    def tune(self, *, since: Optional[Time] = None, until: Optional[Time] = None, dry_run: bool = False) -> TuneResult:
        """Searches the namespace's scoring weights on its correction triples (POST /v1/tune; admin keys)."""
        body = _fields(since=since, until=until)
        body["dry_run"] = dry_run
        return cast(TuneResult, self._json("POST", "/v1/tune", body=body))

    def tuning(self) -> Tuning:
        """The namespace's tuning history (GET /v1/tune)."""
        return cast(Tuning, self._json("GET", "/v1/tune"))

    def rollback_tuning(self, version: int) -> Tuning:
        """Makes a tuning version active again; 0 = the preset's own weights (POST /v1/tune/rollback; admin keys)."""
        return cast(Tuning, self._json("POST", "/v1/tune/rollback", body={"version": version}))

    # ---- lifecycle ----

    def expire(
        self, *, max_importance: Optional[float] = None, idle_days: Optional[float] = None, dry_run: bool = False
    ) -> ExpireResult:
        """Archives unimportant, unused records (POST /v1/expire; admin keys)."""
        body = _fields(max_importance=max_importance, idle_days=idle_days)
        body["dry_run"] = dry_run
        return cast(ExpireResult, self._json("POST", "/v1/expire", body=body))

    def consolidate(self, *, dry_run: bool = False) -> ConsolidateResult:
        """Merges the namespace's near-duplicates by the write path's rules, the merged-away ones
        forgotten and restorable (POST /v1/consolidate; admin keys)."""
        return cast(ConsolidateResult, self._json("POST", "/v1/consolidate", body={"dry_run": dry_run}))

    def purge(self, older_than_days: float) -> PurgeResult:
        """Deletes for good records forgotten longer ago than older_than_days (POST /v1/purge; admin keys)."""
        return cast(PurgeResult, self._json("POST", "/v1/purge", body={"older_than_days": older_than_days}))

    def summarize(self, thread: str, *, budget: Optional[int] = None) -> EpisodeResult:
        """Writes or rewrites the episode summarising a thread (POST /v1/episodes)."""
        return cast(EpisodeResult, self._json("POST", "/v1/episodes", body=_fields(thread=thread, budget=budget)))

    def threads(self) -> List[ThreadInfo]:
        """The namespace's threads, most recently active first (GET /v1/threads)."""
        return cast(List[ThreadInfo], self._json("GET", "/v1/threads"))

    def principles(self) -> List[Principle]:
        """The principle registry: each principle with the decisions that
        apply it (GET /v1/principles)."""
        return cast(List[Principle], self._json("GET", "/v1/principles"))

    # ---- export and import ----

    def export_records(self) -> Iterator[MemoryRecord]:
        """The namespace's records, oldest first, as the server streams them
        (GET /v1/export). An export cut off midway raises MnemoError network."""
        for line in self.export_lines():
            yield cast(MemoryRecord, _parse_line(line))

    def export_lines(self) -> Iterator[str]:
        """The export as JSONL lines (without their newline), unparsed."""
        return self._lines("GET", "/v1/export", None, "export")

    def export_to(self, file: IO[str]) -> int:
        """Writes the export to a text file as JSONL; returns the number of records."""
        n = 0
        for line in self.export_lines():
            file.write(line + "\n")
            n += 1
        return n

    def import_records(self, source: ImportSource) -> ImportResult:
        """Imports records (POST /v1/import): JSONL text or bytes, a file, or
        records (dicts or JSON lines) in any iterable, e.g. another client's
        export_records(). The body is assembled before it is sent (the server
        reads an import whole), so a retried request sends it again."""
        return cast(ImportResult, self._json("POST", "/v1/import", raw=_import_body(source), content_type="application/x-ndjson"))

    # ---- health ----

    def ready(self) -> bool:
        """Whether the server is ready: it answers and its store takes writes (GET /readyz)."""
        try:
            self._json("GET", "/readyz", retry=False)
            return True
        except MnemoError as e:
            if e.status == 503:
                return False
            raise

    # ---- transport ----

    @staticmethod
    def _record(id: str) -> str:
        if not isinstance(id, str) or not id:
            raise MnemoError("invalid", "a record id is required")
        return "/v1/records/" + urllib.parse.quote(id, safe="")

    def _json(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = _UNSET,
        raw: Optional[bytes] = None,
        content_type: Optional[str] = None,
        retry: bool = True,
    ) -> Any:
        if body is not _UNSET:
            raw = json.dumps(_jsonable(body), ensure_ascii=False).encode("utf-8")
            content_type = "application/json"
        resp = self._send(method, path, query, raw, content_type, retry)
        label = f"{method} {path}"
        try:
            with resp:
                data = resp.read()
        except (http.client.HTTPException, OSError) as e:
            raise self._failure(e, f"{label}: the answer was cut off") from e
        try:
            return json.loads(data.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise MnemoError("bad_response", f"{label}: the answer is not JSON", resp.status) from e

    def _lines(self, method: str, path: str, query: Optional[Mapping[str, Any]], what: str) -> Iterator[str]:
        resp = self._send(method, path, query, None, None, True)
        n = 0
        with resp:
            while True:
                try:
                    raw = resp.readline()
                except (http.client.HTTPException, OSError) as e:
                    raise self._failure(e, f"{what} was cut off after {n} lines") from e
                if not raw:
                    return
                if not raw.endswith(b"\n"):
                    # Every line the server writes ends with a newline: one
                    # without is the start of a line that never finished.
                    raise MnemoError("network", f"{what} was cut off after {n} lines (the last line is incomplete)")
                line = raw.decode("utf-8").rstrip("\r\n")
                if not line.strip():
                    continue
                n += 1
                yield line

    def _failure(self, e: BaseException, what: str) -> MnemoError:
        if isinstance(e, MnemoError):
            return e
        if isinstance(e, (socket.timeout, TimeoutError)) or isinstance(getattr(e, "reason", None), (socket.timeout, TimeoutError)):
            return MnemoError("timeout", f"{what}: no answer within {self.timeout} s")
        return MnemoError("network", f"{what}: {getattr(e, 'reason', None) or e}")

    def _send(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]],
        body: Optional[bytes],
        content_type: Optional[str],
        retry: bool,
    ) -> Any:
        url = self.base_url + path
        if query:
            qs = _query(query)
            if qs:
                url += "?" + qs
        headers = dict(self.headers)
        headers["Accept"] = "application/json"
        headers["User-Agent"] = f"mnemo-client-python/{__version__}"
        if body is not None and content_type:
            headers["Content-Type"] = content_type
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        if self.namespace:
            headers["Mnemo-Namespace"] = self.namespace
        label = f"{method} {path}"
        max_retries = self.max_retries if retry else 0
        attempt = 0
        while True:
            req = urllib.request.Request(url, data=body, method=method, headers=headers)
            try:
                return _opener.open(req, timeout=self.timeout)
            except urllib.error.HTTPError as e:
                try:
                    data = e.read()
                except (http.client.HTTPException, OSError):
                    data = b""
                finally:
                    e.close()
                err = _error_of(e.code, str(e.reason or ""), e.headers, data, label)
            except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
                raise self._failure(e, f"{label}: cannot reach the mnemo server at {self.base_url}") from e
            if err.status in (429, 503) and attempt < max_retries:
                if err.retry_after is not None:
                    wait = err.retry_after
                else:
                    exp = min(self.max_retry_delay, self.retry_delay * 2**attempt)
                    wait = exp / 2 + random.random() * exp / 2
                if wait <= self.max_retry_delay:
                    time.sleep(wait)
                    attempt += 1
                    continue
            raise err


def _parse_line(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError as e:
        raise MnemoError("bad_response", "a line of the stream is not JSON") from e


def _line(item: Any) -> bytes:
    if isinstance(item, (bytes, bytearray)):
        b = bytes(item)
    elif isinstance(item, str):
        b = item.encode("utf-8")
    else:
        b = json.dumps(_jsonable(item), ensure_ascii=False).encode("utf-8")
    return b if b.endswith(b"\n") else b + b"\n"


def _import_body(source: ImportSource) -> bytes:
    if isinstance(source, str):
        return source.encode("utf-8")
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    read = getattr(source, "read", None)
    if callable(read):
        data = read()
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if isinstance(source, Mapping):
        return _line(source)
    try:
        items = iter(cast(Iterable[Any], source))
    except TypeError:
        raise MnemoError("invalid", "import_records takes JSONL text or bytes, a file, or records in an iterable") from None
    return b"".join(_line(x) for x in items)
