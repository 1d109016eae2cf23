"""Request and answer types of mnemo's REST API, as TypedDicts.

Keys are the REST field names. Every type that the server's OpenAPI
document (server/openapi.json) describes has the same name there, except
MemoryRecord (Record) and ErrorBody (Error); tests/test_types.py compares
them key by key. Answers are plain dicts, so fields a newer server adds
are kept.
"""

from typing import Dict, List, Literal, Optional, TypedDict

Layer = Literal["domain", "workflow", "practitioner"]
Kind = Literal["fact", "preference", "episode", "procedure", "decision", "correction", "refresh", "event", "core", "principle"]
Outcome = Literal["accepted", "rejected", "modified"]
ErrorCode = Literal[
    "invalid",
    "unauthorized",
    "forbidden",
    "not_found",
    "conflict",
    "too_large",
    "unsupported_media_type",
    "rate_limited",
    "unavailable",
    "embedder_mismatch",
    "internal",
]
DateTime = str
"""An RFC 3339 time, e.g. "2026-11-30T09:00:00Z"."""


class _AlternativeRequired(TypedDict):
    option: str


class Alternative(_AlternativeRequired, total=False):
    """A rejected option of a decision."""

    reason: str


class Decision(TypedDict, total=False):
    """Structured body of a decision."""

    title: str
    context: str
    decision: str
    alternatives: List[Alternative]
    consequences: str
    principle: str
    principles: List[str]
    status: str
    constrains: List[str]
    depends_on: List[str]


# "class" is a keyword: this uses the functional syntax.
Correction = TypedDict(
    "Correction",
    {
        "class": str,
        "category": str,
        "component": str,
        "outcome": Outcome,
        "summary": str,
        "retrieval_id": str,
        "missing_context": bool,
    },
    total=False,
)
"""Structured body of a correction."""


class Filter(TypedDict, total=False):
    """Structured filters of recall and digest."""

    layers: List[Layer]
    kinds: List[Kind]
    scope_prefix: str
    component: str
    mission: str
    thread: str
    tags: List[str]
    min_criticality: float
    since: DateTime
    until: DateTime
    outcome: Outcome
    as_of: DateTime
    as_known_at: DateTime
    operator: str


class _RecordBody(TypedDict, total=False):
    """The fields a stored record, a new record and a patch share."""

    decision: Decision
    correction: Correction
    importance: float
    confidence: float
    criticality: float
    source: str
    provenance: List[str]
    component: str
    tags: List[str]
    mission: str
    thread: str
    access_level: int
    valid_to: DateTime


class _Placement(TypedDict, total=False):
    """Where a new record or a patch puts a record (a stored one has all three)."""

    layer: Layer
    kind: Kind
    scope: str


class _MemoryRecordRequired(TypedDict):
    id: str
    namespace: str
    layer: Layer
    kind: Kind
    scope: str
    text: str


class MemoryRecord(_MemoryRecordRequired, _RecordBody, total=False):
    """A stored record."""

    created_at: DateTime
    updated_at: DateTime
    last_accessed_at: DateTime
    access_count: int
    valid_from: DateTime
    superseded_by: str
    deleted_at: DateTime
    tokens: int


class WrittenRecord(MemoryRecord, total=False):
    """The answer of remember; merged is true when merged into a near-duplicate."""

    merged: bool


class _NewRecordRequired(TypedDict):
    text: str


class NewRecord(_NewRecordRequired, _Placement, _RecordBody, total=False):
    """A new record, as in a batch."""

    id: str
    at: DateTime
    supersedes: str


class RememberRequest(NewRecord, total=False):
    """The body of remember: a new record plus write options."""

    no_dedup: bool


class _BatchRequestRequired(TypedDict):
    records: List[NewRecord]


class BatchRequest(_BatchRequestRequired, total=False):
    """The body of remember_batch (at most 1000 records)."""

    no_dedup: bool


class BatchResponse(TypedDict, total=False):
    ids: List[str]
    merged: List[bool]


class ListResponse(TypedDict, total=False):
    """One page of list; next is absent on the last page."""

    records: List[MemoryRecord]
    next: str


class RecordPatch(_Placement, _RecordBody, total=False):
    """The fields update changes; absent fields are kept."""

    text: str
    superseded_by: str


class Revision(TypedDict, total=False):
    """One revision of a record's history (record is absent or None when redacted)."""

    seq: int
    at: DateTime
    action: str
    actor: str
    record: Optional[MemoryRecord]
    redacted: bool


class _Ranking(TypedDict, total=False):
    """How recall and digest choose and rank records."""

    filters: Filter
    preset: str
    intent: str
    min_relevance: float


class _RecallRequestRequired(TypedDict):
    query: str


class RecallRequest(_RecallRequestRequired, _Ranking, total=False):
    """The body of recall."""

    k: int


class Triage(TypedDict, total=False):
    active: bool
    alpha: float
    rate: float
    capacity: float


class _WhyRequired(TypedDict):
    evidence: str
    relevance: float
    floor: float
    keyword_share: float
    semantic: float
    semantic_null: float
    semantic_strength: float


class Why(_WhyRequired, total=False):
    """Why a hit passed the relevance floor."""

    expansion_share: float
    matched: List[str]
    expanded: List[str]
    learned: float
    learned_null: float
    interval: str
    reply_to: str


class _Hit(TypedDict, total=False):
    """A record as recall and digest rank it."""

    id: str
    score: float
    factors: Dict[str, float]
    text: str
    layer: Layer
    kind: Kind
    scope: str
    provenance: List[str]
    why: Why


class _Ranked(TypedDict, total=False):
    """What recall and digest answer about their ranking."""

    retrieval_id: str
    intent: str
    intent_by: Literal["request", "rules", "model"]
    preset: str
    weights: Dict[str, float]
    triage: Triage


class RecallHit(_Hit, total=False):
    created_at: DateTime


class RecallResult(_Ranked, total=False):
    hits: List[RecallHit]


class _DigestRequestRequired(TypedDict):
    task_description: str


class DigestRequest(_DigestRequestRequired, _Ranking, total=False):
    """The body of digest."""

    scope: Literal["all", "domain", "workflow", "practitioner"]
    token_budget: int
    min_score_ratio: float


class DigestEntry(_Hit, total=False):
    tokens: int
    section: str
    covers: List[str]


class Digest(_Ranked, total=False):
    """The answer of digest; markdown is ready for a prompt."""

    task: str
    scope: str
    budget: int
    used_tokens: int
    tokenizer: str
    entries: List[DigestEntry]
    candidates: int
    omitted: int
    weaker: int
    markdown: str


class ImportResult(TypedDict, total=False):
    read: int
    imported: int
    skipped: int


class ErrorDetail(TypedDict):
    code: str
    message: str


class ErrorBody(TypedDict):
    error: ErrorDetail


class CorrectionCounts(TypedDict, total=False):
    retrievals: int
    corrections: int
    missing_context: int
    linked: int
    missing_share: float
    missing_per_100_retrievals: float


class CorrectionPeriod(CorrectionCounts, total=False):
    start: DateTime


class CorrectionReport(TypedDict, total=False):
    namespace: str
    since: DateTime
    until: DateTime
    bucket: Literal["day", "week", "month"]
    totals: CorrectionCounts
    periods: List[CorrectionPeriod]
    by_category: Dict[str, CorrectionCounts]
    by_component: Dict[str, CorrectionCounts]


class ExpireRequest(TypedDict, total=False):
    max_importance: float
    idle_days: float
    dry_run: bool


class ExpireResult(TypedDict, total=False):
    checked: int
    archived: List[str]
    dry_run: bool


class ConsolidateRequest(TypedDict, total=False):
    dry_run: bool


class ConsolidatePair(TypedDict, total=False):
    kept: str
    merged: str


class ConsolidateResult(TypedDict, total=False):
    checked: int
    pairs: List[ConsolidatePair]
    dry_run: bool


class PurgeRequest(TypedDict):
    older_than_days: float


class PurgeResult(TypedDict, total=False):
    purged: int


# "from" is a keyword: these use the functional syntax.
HandoffRequest = TypedDict("HandoffRequest", {"from": str, "since": DateTime, "budget": int}, total=False)


class HandoffPattern(TypedDict, total=False):
    category: str
    corrections: int
    missing_context: int
    summaries: List[str]


class HandoffAttention(TypedDict, total=False):
    component: str
    corrections: int
    missing_context: int
    critical_events: int


HandoffLink = TypedDict("HandoffLink", {"from": str, "to": str, "why": str}, total=False)

Handoff = TypedDict(
    "Handoff",
    {
        "namespace": str,
        "from": str,
        "since": DateTime,
        "until": DateTime,
        "budget": int,
        "used_tokens": int,
        "tokenizer": str,
        "patterns": List[HandoffPattern],
        "attention": List[HandoffAttention],
        "decisions": List[str],
        "questions": List[str],
        "timeline": List[str],
        "omitted": int,
        "markdown": str,
        "links": List[HandoffLink],
    },
    total=False,
)


class Weights(TypedDict, total=False):
    Semantic: float
    Keyword: float
    Recency: float
    Importance: float
    Confidence: float
    Frequency: float


class TuneRequest(TypedDict, total=False):
    since: DateTime
    until: DateTime
    dry_run: bool


# "from" again.
TuneResult = TypedDict(
    "TuneResult",
    {
        "accepted": bool,
        "reason": str,
        "dry_run": bool,
        "triples": int,
        "from": Weights,
        "to": Weights,
        "recall_before": float,
        "recall_after": float,
        "held_out_recall": List[float],
        "version": int,
    },
    total=False,
)


class TuningVersion(TypedDict, total=False):
    version: int
    at: DateTime
    weights: Weights
    recall_before: float
    recall_after: float
    held_out_recall: List[float]
    triples: int
    actor: str


class TuningEvent(TypedDict, total=False):
    at: DateTime
    active: int
    action: str
    actor: str


class Tuning(TypedDict, total=False):
    active: int
    versions: List[TuningVersion]
    events: List[TuningEvent]


class RollbackRequest(TypedDict):
    version: int


class _EpisodeRequestRequired(TypedDict):
    thread: str


class EpisodeRequest(_EpisodeRequestRequired, total=False):
    budget: int


class EpisodeResult(TypedDict, total=False):
    record: MemoryRecord
    created: bool
    records: int
    sentences: int


class PrincipleDecision(TypedDict, total=False):
    """A decision that applies a principle; cites: "id" or "text"."""

    id: str
    title: str
    text: str
    status: str
    cites: Literal["id", "text"]


class Principle(TypedDict, total=False):
    """A principle of the registry with the decisions that apply it."""

    id: str
    text: str
    scope: str
    component: str
    access_level: int
    decisions: List[PrincipleDecision]


class ThreadInfo(TypedDict, total=False):
    name: str
    records: int
    first: DateTime
    last: DateTime


class _CorrectionTripleRequired(TypedDict):
    correction_id: str
    at: DateTime
    retrieval_id: str
    operation: str
    query: str
    retrieved: List[str]
    missed: List[str]


class CorrectionTriple(_CorrectionTripleRequired, total=False):
    """One line of correction_triples."""

    category: str
    component: str
    summary: str


class Status(TypedDict, total=False):
    status: str


Page = ListResponse
"""A page of list: records, and next (absent on the last page)."""

__all__ = [
    "Layer",
    "Kind",
    "Outcome",
    "ErrorCode",
    "DateTime",
    "Alternative",
    "Decision",
    "Correction",
    "Filter",
    "MemoryRecord",
    "WrittenRecord",
    "NewRecord",
    "RememberRequest",
    "BatchRequest",
    "BatchResponse",
    "ListResponse",
    "RecordPatch",
    "Revision",
    "RecallRequest",
    "Triage",
    "Why",
    "RecallHit",
    "RecallResult",
    "DigestRequest",
    "DigestEntry",
    "Digest",
    "ImportResult",
    "ErrorDetail",
    "ErrorBody",
    "CorrectionCounts",
    "CorrectionPeriod",
    "CorrectionReport",
    "ExpireRequest",
    "ExpireResult",
    "ConsolidateRequest",
    "ConsolidatePair",
    "ConsolidateResult",
    "PurgeRequest",
    "PurgeResult",
    "HandoffRequest",
    "HandoffPattern",
    "HandoffAttention",
    "HandoffLink",
    "Handoff",
    "Weights",
    "TuneRequest",
    "TuneResult",
    "TuningVersion",
    "TuningEvent",
    "Tuning",
    "RollbackRequest",
    "EpisodeRequest",
    "EpisodeResult",
    "ThreadInfo",
    "Principle",
    "PrincipleDecision",
    "CorrectionTriple",
    "Status",
    "Page",
]
