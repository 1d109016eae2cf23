"""MnemoError: an error answer of the server with its code, or a failure of the client."""

from typing import Optional

CLIENT_CODES = ("network", "timeout", "bad_response")
"""Codes of failures on the client's side: network (the server could not be
reached, or an answer was cut off), timeout, bad_response (an answer that is
not what the REST API sends)."""

_STATUS_CODES = {
    400: "invalid",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    503: "unavailable",
}


def code_of_status(status: int) -> str:
    """The code the server uses for a status, for answers without a JSON error body."""
    return _STATUS_CODES.get(status, "internal")


class MnemoError(Exception):
    """An error answer of the server, or a failure of the client.

    code is the server's error code (invalid, unauthorized, forbidden,
    not_found, conflict, too_large, unsupported_media_type, rate_limited,
    unavailable, embedder_mismatch, internal) or one of CLIENT_CODES;
    status the HTTP status (0 when no answer arrived); retry_after the
    seconds the server asked to wait (Retry-After), when it did.
    """

    def __init__(self, code: str, message: str, status: int = 0, retry_after: Optional[float] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.message else self.code

    def __repr__(self) -> str:
        return f"MnemoError(code={self.code!r}, message={self.message!r}, status={self.status!r})"
