"""Object storage for raw responses: the RawStore protocol and its two backends.

`file:///abs/path` (the embedded default) or `s3://bucket/prefix` (MinIO or any
S3). Keys are content-addressed: `{source}/{YYYY-MM-DD}/{sha256}{ext}`.
"""

from __future__ import annotations

from datetime import date
from typing import Protocol
from urllib.parse import unquote, urlparse

from pipeline.errors import ConfigError
from pipeline.rawstore.file import FileRawStore
from pipeline.settings import Settings

_EXTENSIONS = {"json": ".json", "html": ".html", "xml": ".xml", "text/plain": ".txt"}


class RawStore(Protocol):
    url: str

    def put(self, key: str, data: bytes, content_type: str | None) -> None: ...

    def get(self, key: str) -> bytes:
        """The stored bytes; raises KeyError when the object does not exist."""
        ...

    def size(self, key: str) -> int | None:
        """Stored length, or None when the object does not exist."""
        ...

    def delete(self, key: str) -> None:
        """Remove the object; deleting one that does not exist is not an error."""
        ...


def extension_for(content_type: str | None) -> str:
    lowered = (content_type or "").lower()
    for marker, ext in _EXTENSIONS.items():
        if marker in lowered:
            return ext
    return ".bin"


def object_key(source_id: str, day: date, sha256: str, content_type: str | None) -> str:
    return f"{source_id}/{day.isoformat()}/{sha256}{extension_for(content_type)}"


def open_raw_store(settings: Settings, url: str | None = None) -> RawStore:
    url = url or settings.effective_raw_store_url
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return FileRawStore(unquote(parsed.path), url=url)
    if parsed.scheme == "s3":
        # Loaded only for an s3:// store: minio (and urllib3 under it) is not imported for
        # the embedded file:// default.
        from pipeline.rawstore.s3 import S3RawStore

        return S3RawStore.from_settings(settings, bucket=parsed.netloc, prefix=parsed.path, url=url)
    raise ConfigError(
        [
            f"JOBHARBOR_RAW_STORE_URL: unsupported scheme {parsed.scheme!r} in {url!r} (use file:// or s3://)"
        ]
    )
