import { MnemoError, codeOfStatus } from "./errors.js";
import type {
  BatchRequest,
  BatchResponse,
  CorrectionReport,
  CorrectionTriple,
  CorrectionsQuery,
  Digest,
  DigestRequest,
  EpisodeRequest,
  EpisodeResult,
  ExpireRequest,
  ExpireResult,
  ConsolidateRequest,
  ConsolidateResult,
  Handoff,
  HandoffRequest,
  ImportResult,
  ListQuery,
  ListResponse,
  MemoryRecord,
  NewRecord,
  PurgeRequest,
  PurgeResult,
  RecallRequest,
  RecallResult,
  RecordPatch,
  RememberRequest,
  Revision,
  RollbackRequest,
  ThreadInfo,
  Principle,
  TuneRequest,
  TuneResult,
  Tuning,
  WrittenRecord,
} from "./types.js";
import { VERSION } from "./version.js";

/** Options of a Mnemo client. */
export interface MnemoOptions {
  /** the server, e.g. http://127.0.0.1:7077 */
  baseUrl: string;
  /** an API key from `mnemo keys create`, sent as Authorization: Bearer */
  apiKey?: string;
  /** sent as Mnemo-Namespace; absent lets the server choose (the key's only namespace, else default) */
  namespace?: string;
  /** milliseconds one attempt may take until its answer is read (exports: until it starts); default 60000, 0 = none */
  timeout?: number;
  /** retries of an answer 429 (rate_limited) or 503 (unavailable); default 3, 0 = none */
  maxRetries?: number;
  /** first backoff in milliseconds when the server sends no Retry-After, doubled on each retry; default 500 */
  retryDelay?: number;
  /** longest wait before a retry, in milliseconds; a longer Retry-After is not waited for; default 30000 */
  maxRetryDelay?: number;
  /** the fetch to use (default: the platform's) */
  fetch?: typeof fetch;
  /** extra headers sent with every request */
  headers?: { [name: string]: string };
}

/** Options of one call. */
export interface CallOptions {
  /** cancels the call (and a stream being read): it rejects with the signal's reason */
  signal?: AbortSignal;
  /** overrides MnemoOptions.timeout for this call */
  timeout?: number;
}

/** A page of list: its records and the cursor of the next page. */
export interface Page {
  records: MemoryRecord[];
  /** absent on the last page */
  next?: string;
}

/**
 * The pages of a list, fetched one by one as they are iterated:
 * `for await (const page of m.list({ kind: "decision" }))`, or
 * `for await (const rec of m.list().records())` for the records.
 */
export interface Pages extends AsyncIterable<Page> {
  /** the records of every page, in order */
  records(): AsyncIterable<MemoryRecord>;
}

/** What importRecords takes: JSONL text or bytes, or records (objects or JSON lines), in any iterable or stream. */
export type ImportSource =
  | string
  | Uint8Array
  | Blob
  | ReadableStream<Uint8Array>
  | Iterable<MemoryRecord | string>
  | AsyncIterable<MemoryRecord | string>;

type Query = { [name: string]: unknown };

interface Req {
  method: string;
  path: string;
  query?: Query;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  retry?: boolean;
}

const DEFAULT_TIMEOUT = 60_000;

/**
 * A client of one mnemo server's REST API. Request objects use the REST
 * field names: `m.remember({ text, importance })`,
 * `m.digest({ task_description, token_budget })`, `m.get(id)`.
 */
export class Mnemo {
  /** the client's version, that of the server release it matches */
  static readonly version = VERSION;

  readonly baseUrl: string;
  readonly namespace: string | undefined;
  private readonly opts: MnemoOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(options: MnemoOptions) {
    if (!options || typeof options.baseUrl !== "string") {
      throw new MnemoError("invalid", "baseUrl is required, e.g. http://127.0.0.1:7077");
    }
    let u: URL;
    try {
      u = new URL(options.baseUrl);
    } catch {
      throw new MnemoError("invalid", `baseUrl ${JSON.stringify(options.baseUrl)} is not http(s)://HOST[:PORT]`);
    }
    if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.host) {
      throw new MnemoError("invalid", `baseUrl ${JSON.stringify(options.baseUrl)} is not http(s)://HOST[:PORT]`);
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.namespace = options.namespace || undefined;
    this.opts = { ...options };
    const f = options.fetch ?? (globalThis as { fetch?: typeof fetch }).fetch;
    if (typeof f !== "function") {
      throw new MnemoError("invalid", "no fetch: use Node 18 or later, a browser, or pass options.fetch");
    }
    this.fetchImpl = options.fetch ? f : f.bind(globalThis);
  }

  /** A client like this one that acts in namespace ns. */
  withNamespace(namespace: string): Mnemo {
    return new Mnemo({ ...this.opts, namespace });
  }

  // ---- records ----

  /** Stores one record (POST /v1/records). `merged` is true when it was merged into a near-duplicate. */
  remember(record: RememberRequest, options?: CallOptions): Promise<WrittenRecord> {
    return this.json({ method: "POST", path: "/v1/records", json: record }, options);
  }

  /** Stores up to 1000 records in one request (POST /v1/records/batch). */
  rememberBatch(batch: BatchRequest | NewRecord[], options?: CallOptions): Promise<BatchResponse> {
    const body = Array.isArray(batch) ? { records: batch } : batch;
    return this.json({ method: "POST", path: "/v1/records/batch", json: body }, options);
  }

  /** Returns one record (GET /v1/records/{id}). */
  get(id: string, options?: CallOptions): Promise<MemoryRecord> {
    return this.json({ method: "GET", path: recordPath(id) }, options);
  }

  /** Changes fields of a record (PATCH /v1/records/{id}). */
  update(id: string, patch: RecordPatch, options?: CallOptions): Promise<MemoryRecord> {
    return this.json({ method: "PATCH", path: recordPath(id), json: patch }, options);
  }

  /** Forgets a record, restorably (DELETE /v1/records/{id}). */
  forget(id: string, options?: CallOptions): Promise<MemoryRecord> {
    return this.json({ method: "DELETE", path: recordPath(id) }, options);
  }

  /** Restores a forgotten record (POST /v1/records/{id}/restore). */
  restore(id: string, options?: CallOptions): Promise<MemoryRecord> {
    return this.json({ method: "POST", path: recordPath(id) + "/restore" }, options);
  }

  /** A record's revisions, oldest first (GET /v1/records/{id}/history). */
  history(id: string, options?: CallOptions): Promise<Revision[]> {
    return this.json({ method: "GET", path: recordPath(id) + "/history" }, options);
  }

  /** One page of records, newest first (GET /v1/records). */
  async listPage(query: ListQuery = {}, options?: CallOptions): Promise<Page> {
    const page = await this.json<ListResponse>({ method: "GET", path: "/v1/records", query: query as Query }, options);
    const out: Page = { records: page.records ?? [] };
    if (page.next) out.next = page.next;
    return out;
  }

  /**
   * The records matching query, page by page (each page one request, made
   * as the iteration reaches it; `limit` is the page size).
   */
  list(query: ListQuery = {}, options?: CallOptions): Pages {
    const self = this;
    async function* pages(): AsyncGenerator<Page> {
      let after = query.after;
      for (;;) {
        const q: ListQuery = { ...query };
        if (after) q.after = after;
        const page = await self.listPage(q, options);
        yield page;
        if (!page.next || page.records.length === 0) return;
        after = page.next;
      }
    }
    return {
      [Symbol.asyncIterator]: () => pages(),
      async *records() {
        for await (const page of pages()) yield* page.records;
      },
    };
  }

  // ---- retrieval ----

  /** The k best records for a query, each with its score, factors and why (POST /v1/recall). */
  recall(request: RecallRequest, options?: CallOptions): Promise<RecallResult> {
    return this.json({ method: "POST", path: "/v1/recall", json: request }, options);
  }

  /** What an agent should start with for a task, within a token budget: `markdown` is ready for a prompt (POST /v1/digest). */
  digest(request: DigestRequest, options?: CallOptions): Promise<Digest> {
    return this.json({ method: "POST", path: "/v1/digest", json: request }, options);
  }

  /** The brief for an incoming operator (POST /v1/handoff). */
  handoff(request: HandoffRequest = {}, options?: CallOptions): Promise<Handoff> {
    return this.json({ method: "POST", path: "/v1/handoff", json: request }, options);
  }

  // ---- the correction signal and tuning ----

  /** The correction signal of the namespace (GET /v1/corrections). */
  corrections(query: CorrectionsQuery = {}, options?: CallOptions): Promise<CorrectionReport> {
    return this.json({ method: "GET", path: "/v1/corrections", query: query as Query }, options);
  }

  /** The (query, retrieved, missed) triples, streamed (GET /v1/corrections/triples; admin keys). */
  async *correctionTriples(query: CorrectionsQuery = {}, options?: CallOptions): AsyncGenerator<CorrectionTriple> {
    for await (const line of this.lines({ method: "GET", path: "/v1/corrections/triples", query: query as Query }, options, "correction triples")) {
      yield parseLine(line) as CorrectionTriple;
    }
  }

  /** Searches the namespace's scoring weights on its correction triples (POST /v1/tune; admin keys). */
  tune(request: TuneRequest = {}, options?: CallOptions): Promise<TuneResult> {
    return this.json({ method: "POST", path: "/v1/tune", json: request }, options);
  }

  /** The namespace's tuning history (GET /v1/tune). */
  tuning(options?: CallOptions): Promise<Tuning> {
    return this.json({ method: "GET", path: "/v1/tune" }, options);
  }

  /** Makes a tuning version active again; 0 = the preset's own weights (POST /v1/tune/rollback; admin keys). */
  rollbackTuning(request: RollbackRequest | number, options?: CallOptions): Promise<Tuning> {
    const body = typeof request === "number" ? { version: request } : request;
    return this.json({ method: "POST", path: "/v1/tune/rollback", json: body }, options);
  }

  // ---- lifecycle ----

  /** Archives unimportant, unused records (POST /v1/expire; admin keys). */
  expire(request: ExpireRequest = {}, options?: CallOptions): Promise<ExpireResult> {
    return this.json({ method: "POST", path: "/v1/expire", json: request }, options);
  }

  /** Merges the namespace's near-duplicates by the write path's rules, the merged-away ones forgotten and restorable (POST /v1/consolidate; admin keys). */
  consolidate(request: ConsolidateRequest = {}, options?: CallOptions): Promise<ConsolidateResult> {
    return this.json({ method: "POST", path: "/v1/consolidate", json: request }, options);
  }

  /** Deletes for good records forgotten longer ago than older_than_days (POST /v1/purge; admin keys). */
  purge(request: PurgeRequest | number, options?: CallOptions): Promise<PurgeResult> {
    const body = typeof request === "number" ? { older_than_days: request } : request;
    return this.json({ method: "POST", path: "/v1/purge", json: body }, options);
  }

  /** Writes or rewrites the episode summarising a thread (POST /v1/episodes). */
  summarize(request: EpisodeRequest, options?: CallOptions): Promise<EpisodeResult> {
    return this.json({ method: "POST", path: "/v1/episodes", json: request }, options);
  }

  /** The namespace's threads, most recently active first (GET /v1/threads). */
  threads(options?: CallOptions): Promise<ThreadInfo[]> {
    return this.json({ method: "GET", path: "/v1/threads" }, options);
  }

  /** The principle registry: each principle with the decisions that apply it (GET /v1/principles). */
  principles(options?: CallOptions): Promise<Principle[]> {
    return this.json({ method: "GET", path: "/v1/principles" }, options);
  }

  // ---- export and import ----

  /**
   * The namespace's records, oldest first, as the server streams them
   * (GET /v1/export). An export cut off midway rejects with code `network`.
   */
  async *exportRecords(options?: CallOptions): AsyncGenerator<MemoryRecord> {
    for await (const line of this.exportLines(options)) yield parseLine(line) as MemoryRecord;
  }

  /** The export as JSONL lines (without their newline), unparsed. */
  exportLines(options?: CallOptions): AsyncGenerator<string> {
    return this.lines({ method: "GET", path: "/v1/export" }, options, "export");
  }

  /**
   * Imports records (POST /v1/import): JSONL text or bytes, or records in
   * any iterable, async iterable or stream, e.g. another client's
   * exportRecords(). The body is assembled before it is sent (the server
   * reads an import whole), so a retried request sends it again.
   */
  async importRecords(source: ImportSource, options?: CallOptions): Promise<ImportResult> {
    const body = await importBody(source);
    return this.json({ method: "POST", path: "/v1/import", body, contentType: "application/x-ndjson" }, options);
  }

  // ---- health ----

  /** Whether the server is ready: it answers and its store takes writes (GET /readyz). */
  async ready(options?: CallOptions): Promise<boolean> {
    try {
      await this.json({ method: "GET", path: "/readyz", retry: false }, options);
      return true;
    } catch (e) {
      if (e instanceof MnemoError && e.status === 503) return false;
      throw e;
    }
  }

  // ---- transport ----

  private url(path: string, query?: Query): string {
    let u = this.baseUrl + path;
    if (query) {
      const qs = encodeQuery(query);
      if (qs) u += "?" + qs;
    }
    return u;
  }

  private headers(contentType?: string): Headers {
    const h = new Headers(this.opts.headers ?? {});
    h.set("Accept", "application/json");
    if (contentType) h.set("Content-Type", contentType);
    if (this.opts.apiKey) h.set("Authorization", "Bearer " + this.opts.apiKey);
    if (this.namespace) h.set("Mnemo-Namespace", this.namespace);
    return h;
  }

  /** Sends a request and decodes its JSON answer. */
  private async json<T>(req: Req, options?: CallOptions): Promise<T> {
    return this.send(req, options, async (res, done) => {
      let text: string;
      try {
        text = await res.text();
      } finally {
        done();
      }
      try {
        return JSON.parse(text) as T;
      } catch (e) {
        throw new MnemoError("bad_response", `${req.method} ${req.path}: the answer is not JSON`, res.status, undefined, { cause: e });
      }
    });
  }

  /** Streams the lines of an NDJSON answer. */
  private async *lines(req: Req, options: CallOptions | undefined, what: string): AsyncGenerator<string> {
    let release = () => {};
    const res = await this.send(req, options, async (r, done) => {
      release = done;
      return r;
    }, true);
    try {
      if (!res.body) {
        const text = await res.text();
        yield* splitLines(text, what, true);
        return;
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buf = "";
      let n = 0;
      try {
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (e) {
            throw this.failure(e, options, `${what} was cut off after ${n} lines`);
          }
          if (chunk.done) break;
          buf += decoder.decode(chunk.value, { stream: true });
          let i: number;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i).replace(/\r$/, "");
            buf = buf.slice(i + 1);
            if (line.trim() === "") continue;
            n++;
            yield line;
          }
        }
        buf += decoder.decode();
        if (buf.trim() !== "") {
          // Every line the server writes ends with a newline: one without
          // is the start of a line that never finished.
          throw new MnemoError("network", `${what} was cut off after ${n} lines (the last line is incomplete)`);
        }
      } finally {
        reader.releaseLock?.();
        try {
          await res.body.cancel();
        } catch {
          // already closed
        }
      }
    } finally {
      release();
    }
  }

  /** Turns a fetch failure into the caller's abort reason or a MnemoError. */
  private failure(e: unknown, options: CallOptions | undefined, what: string, timedOut = false): unknown {
    const sig = options?.signal;
    if (sig?.aborted) return sig.reason ?? e;
    if (e instanceof MnemoError) return e;
    if (timedOut) return new MnemoError("timeout", `${what}: no answer within the timeout`, 0, undefined, { cause: e });
    return new MnemoError("network", `${what}: ${describe(e)}`, 0, undefined, { cause: e });
  }

  /**
   * Sends a request, retrying 429 and 503 answers, and hands a 2xx answer
   * to read; done() stops the attempt's timeout and abort link (called by
   * read when it has finished with the answer).
   */
  private async send<T>(
    req: Req,
    options: CallOptions | undefined,
    read: (res: Response, done: () => void) => Promise<T>,
    stream = false,
  ): Promise<T> {
    const maxRetries = req.retry === false ? 0 : Math.max(0, this.opts.maxRetries ?? 3);
    const baseDelay = Math.max(0, this.opts.retryDelay ?? 500);
    const maxDelay = Math.max(0, this.opts.maxRetryDelay ?? 30_000);
    const timeout = options?.timeout ?? this.opts.timeout ?? DEFAULT_TIMEOUT;
    const url = this.url(req.path, req.query);
    const label = `${req.method} ${req.path}`;
    let body: BodyInit | undefined = req.body;
    let contentType = req.contentType;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      contentType = "application/json";
    }
    for (let attempt = 0; ; attempt++) {
      const callerSignal = options?.signal;
      if (callerSignal?.aborted) throw callerSignal.reason;
      const ctrl = new AbortController();
      let timedOut = false;
      const onAbort = () => ctrl.abort(callerSignal?.reason);
      callerSignal?.addEventListener("abort", onAbort, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      if (timeout > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          ctrl.abort(new MnemoError("timeout", `${label}: no answer within ${timeout} ms`));
        }, timeout);
      }
      const stopTimer = () => {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
      };
      const done = () => {
        stopTimer();
        callerSignal?.removeEventListener("abort", onAbort);
      };
      let res: Response;
      try {
        res = await this.fetchImpl(url, {
          method: req.method,
          headers: this.headers(body !== undefined ? contentType : undefined),
          body,
          signal: ctrl.signal,
          redirect: "error",
        });
      } catch (e) {
        done();
        throw this.failure(e, options, `${label}: cannot reach the mnemo server at ${this.baseUrl}`, timedOut);
      }
      if (res.ok) {
        // A stream keeps the caller's abort link but not the timeout: the
        // timeout bounds the wait for the export to start, not its length.
        if (stream) stopTimer();
        try {
          return await read(res, done);
        } catch (e) {
          done();
          throw this.failure(e, options, `${label}: the answer was cut off`, timedOut);
        }
      }
      let err: MnemoError;
      try {
        err = await errorOf(res, label);
      } catch (e) {
        done();
        throw this.failure(e, options, `${label}: the answer was cut off`, timedOut);
      }
      done();
      if ((res.status === 429 || res.status === 503) && attempt < maxRetries) {
        let wait: number;
        if (err.retryAfter !== undefined) {
          wait = err.retryAfter * 1000;
        } else {
          const exp = Math.min(maxDelay, baseDelay * 2 ** attempt);
          wait = exp / 2 + Math.random() * (exp / 2);
        }
        if (wait <= maxDelay) {
          await sleep(wait, callerSignal);
          continue;
        }
      }
      throw err;
    }
  }
}

function recordPath(id: string): string {
  if (typeof id !== "string" || id === "") throw new MnemoError("invalid", "a record id is required");
  return "/v1/records/" + encodeURIComponent(id);
}

function encodeQuery(query: Query): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    for (const x of Array.isArray(v) ? v : [v]) {
      if (x === undefined || x === null || x === "") continue;
      q.append(k, x instanceof Date ? x.toISOString() : String(x));
    }
  }
  return q.toString();
}

/** Parses Retry-After: seconds, or an HTTP date. */
function retryAfterOf(res: Response): number | undefined {
  const v = res.headers.get("Retry-After");
  if (v === null || v.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(v)) return Number(v);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, Math.ceil((t - Date.now()) / 1000));
}

/** Decodes {"error":{"code","message"}} into a MnemoError. */
async function errorOf(res: Response, label: string): Promise<MnemoError> {
  const text = await res.text();
  const retryAfter = retryAfterOf(res);
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (body && body.error && typeof body.error.code === "string" && body.error.code !== "") {
      const msg = typeof body.error.message === "string" ? body.error.message : "";
      return new MnemoError(body.error.code, msg, res.status, retryAfter);
    }
  } catch {
    // not JSON: fall through to the status
  }
  return new MnemoError(codeOfStatus(res.status), `${label}: the server answered ${res.status} ${res.statusText}`.trim(), res.status, retryAfter);
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (e) {
    throw new MnemoError("bad_response", "a line of the stream is not JSON", 0, undefined, { cause: e });
  }
}

function* splitLines(text: string, what: string, whole: boolean): Generator<string> {
  const parts = text.split("\n");
  const last = parts.pop() ?? "";
  for (const p of parts) {
    const line = p.replace(/\r$/, "");
    if (line.trim() !== "") yield line;
  }
  if (whole && last.trim() !== "") {
    throw new MnemoError("network", `${what} was cut off (the last line is incomplete)`);
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return `${e.message} (${cause.message})`;
    return e.message;
  }
  return String(e);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function isAsyncIterable(x: unknown): x is AsyncIterable<unknown> {
  return x != null && typeof (x as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}

function isIterable(x: unknown): x is Iterable<unknown> {
  return x != null && typeof (x as { [Symbol.iterator]?: unknown })[Symbol.iterator] === "function";
}

function lineOf(item: unknown): string {
  if (typeof item === "string") return item.endsWith("\n") ? item : item + "\n";
  if (item instanceof Uint8Array) return new TextDecoder().decode(item);
  return JSON.stringify(item) + "\n";
}

/** Assembles an import body from any ImportSource. */
async function importBody(source: ImportSource): Promise<BodyInit> {
  if (typeof source === "string") return source;
  if (source instanceof Uint8Array) return new Blob([source as Uint8Array<ArrayBuffer>]);
  if (typeof Blob !== "undefined" && source instanceof Blob) return source;
  const parts: string[] = [];
  if (typeof ReadableStream !== "undefined" && source instanceof ReadableStream) {
    const reader = (source as ReadableStream<Uint8Array | string>).getReader();
    const dec = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(typeof value === "string" ? value : dec.decode(value, { stream: true }));
    }
    parts.push(dec.decode());
    return new Blob(parts);
  }
  if (isAsyncIterable(source)) {
    for await (const item of source) parts.push(lineOf(item));
  } else if (isIterable(source)) {
    for (const item of source) parts.push(lineOf(item));
  } else {
    throw new MnemoError("invalid", "importRecords takes JSONL text or bytes, or records in an iterable or stream");
  }
  return new Blob(parts);
}
