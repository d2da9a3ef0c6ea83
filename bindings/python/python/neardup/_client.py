"""A client of ``neardup serve``: ask whether a document duplicates one
stored, and store it when new, from Python.

Pure Python (``http.client``), one keep-alive connection per client: use
one :class:`Client` per thread.

>>> client = neardup.Client("http://127.0.0.1:8077")      # doctest: +SKIP
>>> client.insert_if_unique("the river rose in the night", id="page-1")  # doctest: +SKIP
{'id': 'page-1', 'fingerprint': '...', 'duplicates': [], 'inserted': True, ...}
"""

from __future__ import annotations

import http.client
import json
import urllib.parse
from typing import Any, Dict, Iterable, List, Optional

from neardup._neardup import NeardupError


class ServiceError(NeardupError):
    """An error answered by the service: its HTTP ``status``, its ``code``
    (``unauthorized``, ``body_too_large``, ``id_taken``...), and a message
    that says what to do."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class Client:
    """A client of the service at ``url`` (``http://host:port``), sending
    ``token`` as a bearer token when given.

    Every method returns the service's JSON answer (see docs/API.md) and
    raises :class:`ServiceError` for an error it answers, with its status,
    code and message.
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 30.0):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url {url!r}: give http://host:port (or https://)")
        self.url = url.rstrip("/")
        self._parts = parts
        self._timeout = timeout
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token}"
        self._connection: Optional[http.client.HTTPConnection] = None

    def __repr__(self) -> str:
        return f"neardup.Client({self.url!r})"

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self._parts.hostname or "", self._parts.port, timeout=self._timeout)
        return self._connection

    def _request(self, method: str, path: str, body: Any = None, retry: bool = False) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        try:
            connection = self._connect()
            connection.request(method, path, body=data, headers=self._headers)
            response = connection.getresponse()
            status, raw = response.status, response.read()
        except (ConnectionError, http.client.HTTPException, OSError):
            self.close()
            # Only reads are sent again: a write may have been stored.
            if retry:
                return self._request(method, path, body, retry=False)
            raise
        try:
            answer = json.loads(raw) if raw else None
        except ValueError:
            answer = raw.decode("utf-8", "replace")
        return status, answer

    def _checked(self, method: str, path: str, body: Any = None, retry: bool = False, missing_ok: bool = False) -> Any:
        status, answer = self._request(method, path, body, retry)
        if status == 404 and missing_ok:
            return None
        if status >= 400:
            error = answer.get("error", {}) if isinstance(answer, dict) else {}
            raise ServiceError(status, error.get("code", "error"), error.get("message", str(answer)))
        return answer

    def _document(
        self, mode: str, text: Optional[str], id: Optional[str], fingerprint: Optional[str], metadata: Any,
        k: Optional[int],
    ) -> Dict[str, Any]:
        doc: Dict[str, Any] = {"mode": mode}
        for name, value in (("text", text), ("id", id), ("fingerprint", fingerprint), ("metadata", metadata), ("k", k)):
            if value is not None:
                doc[name] = value
        answer: Dict[str, Any] = self._checked("POST", "/v1/documents", doc)
        return answer

    def insert(self, text: Optional[str] = None, *, id: Optional[str] = None, fingerprint: Optional[str] = None,
               metadata: Any = None, k: Optional[int] = None) -> Dict[str, Any]:
        """Stores a document (its text, or its fingerprint in hex) and says
        what it duplicates. Returned once it is durable."""
        return self._document("insert", text, id, fingerprint, metadata, k)

    def insert_if_unique(self, text: Optional[str] = None, *, id: Optional[str] = None,
                         fingerprint: Optional[str] = None, metadata: Any = None, k: Optional[int] = None) -> Dict[str, Any]:
        """Stores a document only when nothing stored duplicates it: the
        crawler's one call. ``answer["inserted"]`` says which happened."""
        return self._document("insert_if_unique", text, id, fingerprint, metadata, k)

    def query(self, text: Optional[str] = None, *, fingerprint: Optional[str] = None, k: Optional[int] = None) -> Dict[str, Any]:
        """The stored documents a text (or fingerprint) duplicates; stores nothing."""
        return self._document("query", text, None, fingerprint, None, k)

    def batch(self, documents: Iterable[Dict[str, Any]], mode: Optional[str] = None, k: Optional[int] = None) -> List[Dict[str, Any]]:
        """Many documents (dicts as ``POST /v1/documents`` takes) in one
        request; their writes share one commit. One answer each, in order;
        a document that could not be stored has an ``error``."""
        body: Dict[str, Any] = {"documents": list(documents)}
        if mode is not None:
            body["mode"] = mode
        if k is not None:
            body["k"] = k
        results: List[Dict[str, Any]] = self._checked("POST", "/v1/documents:batch", body)["results"]
        return results

    def get(self, id: str) -> Optional[Dict[str, Any]]:
        """The stored document ``id`` (fingerprint, text if kept, metadata), or None."""
        found: Optional[Dict[str, Any]] = self._checked("GET", "/v1/documents/" + urllib.parse.quote(id, safe=""), retry=True, missing_ok=True)
        return found

    def delete(self, id: str) -> bool:
        """Deletes document ``id``; False when there was none."""
        return self._checked("DELETE", "/v1/documents/" + urllib.parse.quote(id, safe=""), missing_ok=True) is not None

    def stats(self) -> Dict[str, Any]:
        """What the store holds, and how the service decides duplicates."""
        stats: Dict[str, Any] = self._checked("GET", "/v1/stats", retry=True)
        return stats

    def ready(self) -> bool:
        """Whether the service is up and not stopping."""
        try:
            status, _ = self._request("GET", "/readyz", retry=True)
        except OSError:
            return False
        return status == 200

    def close(self) -> None:
        """Closes the connection (the next call opens another)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
