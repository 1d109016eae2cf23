// Request and answer types of mnemo's REST API. Field names are the REST
// field names. Every interface that the OpenAPI document
// (server/openapi.json) describes has the same name there, except
// MemoryRecord (Record) and ErrorBody (Error), which would shadow
// TypeScript's and JavaScript's own names; test/types.test.mjs compares
// them field by field.

/** The layer a record belongs to. */
export type Layer = "domain" | "workflow" | "practitioner";

/** The kind of a record. */
export type Kind =
  | "fact"
  | "preference"
  | "episode"
  | "procedure"
  | "decision"
  | "correction"
  | "refresh"
  | "event"
  | "core"
  | "principle";

/** The outcome of a correction. */
export type Outcome = "accepted" | "rejected" | "modified";

/** An RFC 3339 time, e.g. "2026-11-30T09:00:00Z". */
export type DateTime = string;

/** A rejected option of a decision. */
export interface Alternative {
  /** rejected option */
  option: string;
  /** why it was rejected */
  reason?: string;
}

/** Structured body of a decision. */
export interface Decision {
  title?: string;
  context?: string;
  /** what was decided */
  decision?: string;
  alternatives?: Alternative[];
  consequences?: string;
  /** principle it rests on, in words */
  principle?: string;
  /** ids of the principle records (kind principle) the decision applies */
  principles?: string[];
  /** proposed, accepted, superseded, deprecated */
  status?: string;
  /** ids of decisions this one constrains */
  constrains?: string[];
  /** ids of decisions this one depends on */
  depends_on?: string[];
}

/** Structured body of a correction. */
export interface Correction {
  class?: string;
  /** semantic category */
  category?: string;
  /** affected component */
  component?: string;
  outcome?: Outcome;
  /** one sentence */
  summary?: string;
  /** the retrieval_id of the recall or digest it followed */
  retrieval_id?: string;
  /** missing context caused it */
  missing_context?: boolean;
}

/** Structured filters of recall and digest. */
export interface Filter {
  layers?: Layer[];
  kinds?: Kind[];
  /** scope path prefix */
  scope_prefix?: string;
  component?: string;
  mission?: string;
  thread?: string;
  /** every tag must be present */
  tags?: string[];
  min_criticality?: number;
  /** created at or after */
  since?: DateTime;
  /** created before */
  until?: DateTime;
  outcome?: Outcome;
  /** bi-temporal read: records valid at that instant */
  as_of?: DateTime;
  /** transaction time: the records as they were known at that instant (read from the revisions) */
  as_known_at?: DateTime;
  /** only records of this operator (tag or provenance operator:NAME) */
  operator?: string;
}

/** The fields a stored record, a new record and a patch share. */
export type RecordBody = {
  decision?: Decision;
  correction?: Correction;
  /** 0..1; a new record's default 0.5 */
  importance?: number;
  /** 0..1; a new record's default depends on its source */
  confidence?: number;
  /** 0..1, default 0 */
  criticality?: number;
  /** user (default), llm, observed, import:git, ... */
  source?: string;
  /** references: commit:SHA, issue:URL, doc:PATH, record:ID, ... */
  provenance?: string[];
  component?: string;
  tags?: string[];
  mission?: string;
  /** the conversation or session the record is part of */
  thread?: string;
  /** clearance needed to see it (at most the writer's) */
  access_level?: number;
  /** end of validity */
  valid_to?: DateTime;
};

/** Where a new record or a patch puts a record (a stored one has all three). */
export type Placement = {
  layer?: Layer;
  kind?: Kind;
  /** scope path such as /regulations/gdpr */
  scope?: string;
};

/** A stored record. */
export interface MemoryRecord extends RecordBody, Required<Placement> {
  id: string;
  namespace: string;
  text: string;
  created_at?: DateTime;
  updated_at?: DateTime;
  last_accessed_at?: DateTime;
  access_count?: number;
  valid_from?: DateTime;
  /** id of the replacement */
  superseded_by?: string;
  /** forgotten at */
  deleted_at?: DateTime;
  /** tokens of the rendered entry */
  tokens?: number;
}

/** The answer of remember: the stored record. */
export interface WrittenRecord extends MemoryRecord {
  /** true when merged into an existing near-duplicate (whose id this is) */
  merged?: boolean;
}

/** A new record, as in a batch. */
export interface NewRecord extends RecordBody, Placement {
  /** optional id (1–256 bytes of letters, digits, - _ . : /); assigned when absent */
  id?: string;
  /** the content */
  text: string;
  /** when it happened or was learned (default now) */
  at?: DateTime;
  /** id of a record this one replaces */
  supersedes?: string;
}

/** The body of remember: a new record plus write options. */
export interface RememberRequest extends NewRecord {
  /** store even if a near-duplicate exists */
  no_dedup?: boolean;
}

/** The body of rememberBatch. */
export interface BatchRequest {
  /** at most 1000 */
  records: NewRecord[];
  no_dedup?: boolean;
}

/** The answer of rememberBatch. */
export interface BatchResponse {
  /** ids in input order */
  ids?: string[];
  merged?: boolean[];
}

/** One page of list. */
export interface ListResponse {
  records?: MemoryRecord[];
  /** cursor of the next page (pass it as `after`); absent on the last page */
  next?: string;
}

/** The fields update changes; absent fields are kept. */
export interface RecordPatch extends RecordBody, Placement {
  text?: string;
  superseded_by?: string;
}

/** One revision of a record's history. */
export interface Revision {
  seq?: number;
  at?: DateTime;
  /** create, update, forget, restore, supersede, import, merge, ... */
  action?: string;
  actor?: string;
  /** the record after the action; absent or null when redacted */
  record?: MemoryRecord | null;
  /** the record was above the caller's clearance after this action */
  redacted?: boolean;
}

/** How recall and digest choose and rank records. */
export type Ranking = {
  filters?: Filter;
  /** scoring preset: default, aura or alma */
  preset?: string;
  /** intent override: general, recent, rules, howto, why */
  intent?: string;
  /**
   * Evidence of relevance every hit must reach, 0..1; 0 turns the floor
   * off. Unset, the floor is adaptive. A digest places core records
   * whatever their relevance.
   */
  min_relevance?: number;
};

/** The body of recall. */
export interface RecallRequest extends Ranking {
  /** free text */
  query: string;
  /** number of hits (default 10, at most 1000) */
  k?: number;
}

/** Degraded-mode ranking, when the namespace is over its triage capacity. */
export interface Triage {
  active?: boolean;
  alpha?: number;
  /** events per minute observed */
  rate?: number;
  /** events per minute the namespace handles */
  capacity?: number;
}

/** Why a hit passed the relevance floor. */
export interface Why {
  /** keyword, semantic, expansion, reply, core or "none required" */
  evidence: string;
  /** the strongest evidence, 0..1 */
  relevance: number;
  /** what the evidence had to reach */
  floor: number;
  /** share of the query's content-term weight the record holds */
  keyword_share: number;
  expansion_share?: number;
  /** the query's index terms found */
  matched?: string[];
  /** source:term of related terms found */
  expanded?: string[];
  /** cosine similarity to the query */
  semantic: number;
  /** what unrelated texts reach with this embedder */
  semantic_null: number;
  /** (semantic − null) / (1 − null) */
  semantic_strength: number;
  learned?: number;
  learned_null?: number;
  /** the time span a temporal query was read as */
  interval?: string;
  /** the question turn this turn answers, when placed right after it */
  reply_to?: string;
}

/** A record as recall and digest rank it. */
export type Hit = {
  id?: string;
  score?: number;
  /** factor name → value */
  factors?: { [factor: string]: number };
  text?: string;
  layer?: Layer;
  kind?: Kind;
  scope?: string;
  provenance?: string[];
  why?: Why;
};

/** What recall and digest answer about their ranking. */
export type Ranked = {
  /** this answer's id in the retrieval log, for correction.retrieval_id */
  retrieval_id?: string;
  /** classified intent */
  intent?: string;
  /** what chose the intent: the request, the rules, or the chat model (asked in the background) */
  intent_by?: "request" | "rules" | "model";
  preset?: string;
  /** factor name → weight */
  weights?: { [factor: string]: number };
  triage?: Triage;
};

/** One hit of a recall. */
export interface RecallHit extends Hit {
  created_at?: DateTime;
}

/** The answer of recall. */
export interface RecallResult extends Ranked {
  hits?: RecallHit[];
}

/** The body of digest. */
export interface DigestRequest extends Ranking {
  /** the task */
  task_description: string;
  /** all (default), domain, workflow or practitioner */
  scope?: "all" | "domain" | "workflow" | "practitioner";
  /** default 8000 */
  token_budget?: number;
  /**
   * Share of the best entry's score every other entry must reach once 8
   * entries are placed (0..1); unset: the namespace's score_ratio, default
   * 0.3; 0: fill the budget with every relevant entry.
   */
  min_score_ratio?: number;
}

/** One record placed in a digest. */
export interface DigestEntry extends Hit {
  tokens?: number;
  /** core, domain, workflow or practitioner */
  section?: string;
  /** ids of the messages this extracted memory was taken from, folded under it */
  covers?: string[];
}

/** The answer of digest: the budgeted context for a task. */
export interface Digest extends Ranked {
  task?: string;
  scope?: string;
  budget?: number;
  used_tokens?: number;
  tokenizer?: string;
  entries?: DigestEntry[];
  candidates?: number;
  omitted?: number;
  /** relevant candidates left out for scoring under min_score_ratio of the best entry */
  weaker?: number;
  /** the digest, ready to inject into a prompt */
  markdown?: string;
}

/** The answer of importRecords. */
export interface ImportResult {
  read?: number;
  imported?: number;
  /** already present */
  skipped?: number;
}

/** An error code of the server. */
export type ErrorCode =
  | "invalid"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "unavailable"
  | "embedder_mismatch"
  | "internal";

/** The body of every error answer. */
export interface ErrorBody {
  error: {
    code: ErrorCode | string;
    message: string;
  };
}

/** Counts of the correction signal. */
export interface CorrectionCounts {
  /** recalls and digests logged (0 for categories and components) */
  retrievals?: number;
  corrections?: number;
  missing_context?: number;
  linked?: number;
  missing_share?: number;
  missing_per_100_retrievals?: number;
}

/** One period of the correction signal. */
export interface CorrectionPeriod extends CorrectionCounts {
  start?: DateTime;
}

/** The answer of corrections. */
export interface CorrectionReport {
  namespace?: string;
  since?: DateTime;
  until?: DateTime;
  bucket?: "day" | "week" | "month";
  totals?: CorrectionCounts;
  periods?: CorrectionPeriod[];
  by_category?: { [category: string]: CorrectionCounts };
  by_component?: { [component: string]: CorrectionCounts };
}

/** The body of expire (admin keys only). */
export interface ExpireRequest {
  /** archive records of importance below this (default 0.1) */
  max_importance?: number;
  /** that were neither read nor changed for this many days (default 120) */
  idle_days?: number;
  dry_run?: boolean;
}

/** The answer of expire. */
export interface ExpireResult {
  checked?: number;
  /** ids archived (or that would be), oldest first */
  archived?: string[];
  dry_run?: boolean;
}

/** The body of consolidate (admin keys only). */
export interface ConsolidateRequest {
  /** list the pairs that would be merged, change nothing */
  dry_run?: boolean;
}

/** One merge of consolidate. */
export interface ConsolidatePair {
  /** the record kept, with the merged one's fields */
  kept?: string;
  /** the record merged into it and forgotten (restorable) */
  merged?: string;
}

/** The answer of consolidate. */
export interface ConsolidateResult {
  /** live records looked at */
  checked?: number;
  /** in the order they were merged */
  pairs?: ConsolidatePair[];
  dry_run?: boolean;
}

/** The body of purge (admin keys only). */
export interface PurgeRequest {
  /** records forgotten or archived longer ago than this are deleted for good */
  older_than_days: number;
}

/** The answer of purge. */
export interface PurgeResult {
  purged?: number;
}

/** The body of handoff. */
export interface HandoffRequest {
  /** the outgoing operator (provenance operator:<from>); default everyone */
  from?: string;
  /** start of the shift or period (default 7 days ago) */
  since?: DateTime;
  /** token budget of the Markdown (default 4000) */
  budget?: number;
}

/** A pattern of the outgoing operator's corrections. */
export interface HandoffPattern {
  category?: string;
  corrections?: number;
  missing_context?: number;
  summaries?: string[];
}

/** A component that needs attention. */
export interface HandoffAttention {
  component?: string;
  corrections?: number;
  missing_context?: number;
  critical_events?: number;
}

/** A causal link between two events of the timeline. */
export interface HandoffLink {
  from?: string;
  to?: string;
  why?: string;
}

/** The answer of handoff: the brief for an incoming operator. */
export interface Handoff {
  namespace?: string;
  from?: string;
  since?: DateTime;
  until?: DateTime;
  budget?: number;
  used_tokens?: number;
  tokenizer?: string;
  patterns?: HandoffPattern[];
  attention?: HandoffAttention[];
  decisions?: string[];
  questions?: string[];
  timeline?: string[];
  omitted?: number;
  markdown?: string;
  links?: HandoffLink[];
}

/** Scoring weights. */
export interface Weights {
  Semantic?: number;
  Keyword?: number;
  Recency?: number;
  Importance?: number;
  Confidence?: number;
  Frequency?: number;
}

/** The body of tune (admin keys only). */
export interface TuneRequest {
  since?: DateTime;
  until?: DateTime;
  dry_run?: boolean;
}

/** The answer of tune. */
export interface TuneResult {
  accepted?: boolean;
  /** why the setting was accepted or refused */
  reason?: string;
  dry_run?: boolean;
  triples?: number;
  from?: Weights;
  to?: Weights;
  recall_before?: number;
  recall_after?: number;
  /** recall@10 on the held-out half: before, after */
  held_out_recall?: number[];
  /** the new active version when accepted */
  version?: number;
}

/** A version of the namespace's tuning. */
export interface TuningVersion {
  version?: number;
  at?: DateTime;
  weights?: Weights;
  recall_before?: number;
  recall_after?: number;
  held_out_recall?: number[];
  triples?: number;
  actor?: string;
}

/** An event of the namespace's tuning history. */
export interface TuningEvent {
  at?: DateTime;
  active?: number;
  action?: string;
  actor?: string;
}

/** The answer of tuning and rollbackTuning. */
export interface Tuning {
  /** the version in force; 0 = the preset's own weights */
  active?: number;
  versions?: TuningVersion[];
  events?: TuningEvent[];
}

/** The body of rollbackTuning (admin keys only). */
export interface RollbackRequest {
  /** 0 = the preset's own weights */
  version: number;
}

/** The body of summarize. */
export interface EpisodeRequest {
  thread: string;
  /** token budget (default 200) */
  budget?: number;
}

/** The answer of summarize. */
export interface EpisodeResult {
  record?: MemoryRecord;
  created?: boolean;
  records?: number;
  sentences?: number;
}

/** A decision that applies a principle. */
export interface PrincipleDecision {
  id?: string;
  title?: string;
  text?: string;
  status?: string;
  /** "id": it cites the principle's id; "text": its free-text principle is the principle's text */
  cites?: "id" | "text";
}

/** A principle of the registry with the decisions that apply it (GET /v1/principles). */
export interface Principle {
  id?: string;
  text?: string;
  scope?: string;
  component?: string;
  access_level?: number;
  decisions?: PrincipleDecision[];
}

/** One thread of threads. */
export interface ThreadInfo {
  name?: string;
  records?: number;
  first?: DateTime;
  last?: DateTime;
}

/** The query of list (GET /v1/records). */
export interface ListQuery {
  layer?: Layer | Layer[];
  kind?: Kind | Kind[];
  /** scope path prefix */
  scope?: string;
  component?: string;
  mission?: string;
  thread?: string;
  /** every tag must be present */
  tag?: string | string[];
  /** minimum criticality */
  criticality?: number;
  since?: DateTime | Date;
  until?: DateTime | Date;
  as_of?: DateTime | Date;
  as_known_at?: DateTime | Date;
  operator?: string;
  outcome?: Outcome;
  /** page size (server default 100) */
  limit?: number;
  /** the cursor: the `next` of the previous page */
  after?: string;
  /** include forgotten records and superseded versions */
  all?: boolean;
}

/** The query of corrections and correctionTriples. */
export interface CorrectionsQuery {
  /** RFC 3339 or YYYY-MM-DD (default 90 days ago) */
  since?: DateTime | Date;
  until?: DateTime | Date;
  by?: "day" | "week" | "month";
}

/** One line of correctionTriples: a (query, retrieved, missed) triple. */
export interface CorrectionTriple {
  correction_id: string;
  at: DateTime;
  retrieval_id: string;
  /** recall or digest */
  operation: string;
  query: string;
  retrieved: string[];
  missed: string[];
  category?: string;
  component?: string;
  summary?: string;
}

/** The answer of ready (GET /readyz). */
export interface Status {
  status?: string;
}
