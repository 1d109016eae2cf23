import type { ErrorCode } from "./types.js";

/**
 * Codes of failures that happen on the client's side, not the server's:
 * `network` (the server could not be reached, or an answer was cut off),
 * `timeout` (no answer within the timeout), `bad_response` (an answer that
 * is not what the REST API sends).
 */
export type ClientErrorCode = "network" | "timeout" | "bad_response";

/**
 * An error answer of the server, with its code (`not_found`, `forbidden`,
 * `rate_limited`, ...), or a failure of the client (`network`, `timeout`,
 * `bad_response`). A call cancelled with an AbortSignal rejects with the
 * signal's reason instead, as fetch does.
 */
export class MnemoError extends Error {
  /** the server's error code, or a ClientErrorCode */
  readonly code: ErrorCode | ClientErrorCode | string;
  /** the HTTP status, or 0 when no answer arrived */
  readonly status: number;
  /** seconds the server asked to wait (Retry-After), when it did */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode | ClientErrorCode | string,
    message: string,
    status = 0,
    retryAfter?: number,
    options?: { cause?: unknown },
  ) {
    super(message);
    this.name = "MnemoError";
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
    if (options && "cause" in options) {
      Object.defineProperty(this, "cause", { value: options.cause, enumerable: false, writable: true, configurable: true });
    }
  }
}

/** The code the server uses for each status, for answers without a JSON error body. */
export function codeOfStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return "invalid";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 409:
      return "conflict";
    case 413:
      return "too_large";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "rate_limited";
    case 503:
      return "unavailable";
    default:
      return "internal";
  }
}
