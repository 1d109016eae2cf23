export { Mnemo } from "./client.js";
export type { CallOptions, ImportSource, MnemoOptions, Page, Pages } from "./client.js";
export { MnemoError } from "./errors.js";
export type { ClientErrorCode } from "./errors.js";
export { VERSION } from "./version.js";
export type {
  Layer, Kind, Outcome, DateTime, Alternative, Decision, Correction, Filter, MemoryRecord,
  WrittenRecord, NewRecord, RememberRequest, BatchRequest, BatchResponse, ListResponse,
  RecordPatch, Revision, RecallRequest, Triage, Why, RecallHit, RecallResult, DigestRequest,
  DigestEntry, Digest, ImportResult, ErrorCode, ErrorBody, CorrectionCounts, CorrectionPeriod,
  CorrectionReport, ExpireRequest, ExpireResult, ConsolidateRequest, ConsolidatePair, ConsolidateResult, PurgeRequest, PurgeResult, HandoffRequest,
  HandoffPattern, HandoffAttention, HandoffLink, Handoff, Weights, TuneRequest, TuneResult,
  TuningVersion, TuningEvent, Tuning, RollbackRequest, EpisodeRequest, EpisodeResult,
  ThreadInfo, Principle, PrincipleDecision, ListQuery, CorrectionsQuery, CorrectionTriple, Status,
  RecordBody, Placement, Ranking, Hit, Ranked,
} from "./types.js";
