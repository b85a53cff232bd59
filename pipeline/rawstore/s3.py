"""Raw objects in S3 / MinIO through the `minio` client.

Endpoint and keys come from the environment (JOBHARBOR_S3_*), never from files.
"""

from __future__ import annotations

import io

from minio import Minio
from minio.error import S3Error

from pipeline.errors import ConfigError
from pipeline.settings import Settings

_MISSING = {"NoSuchKey", "NoSuchObject", "NoSuchBucket"}


class S3RawStore:
    def __init__(self, client: Minio, bucket: str, prefix: str = "", *, url: str) -> None:
        self.client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.url = url

    @classmethod
    def from_settings(cls, settings: Settings, *, bucket: str, prefix: str, url: str) -> S3RawStore:
        if not settings.s3_endpoint:
            raise ConfigError([f"JOBHARBOR_S3_ENDPOINT must be set to use the raw store {url}"])
        if not bucket:
            raise ConfigError(
                [f"JOBHARBOR_RAW_STORE_URL: no bucket in {url!r} (use s3://bucket/prefix)"]
            )
        client = Minio(
            settings.s3_endpoint,
            access_key=settings.s3_access_key.get_secret_value()
            if settings.s3_access_key
            else None,
            secret_key=settings.s3_secret_key.get_secret_value()
            if settings.s3_secret_key
            else None,
            secure=settings.s3_secure,
            region=settings.s3_region,
        )
        store = cls(client, bucket, prefix, url=url)
        store.ensure_bucket()
        return store

    def ensure_bucket(self) -> None:
        if not self.client.bucket_exists(self.bucket):
            self.client.make_bucket(self.bucket)

    def _name(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def put(self, key: str, data: bytes, content_type: str | None) -> None:
        self.client.put_object(
            self.bucket,
            self._name(key),
            io.BytesIO(data),
            length=len(data),
            content_type=content_type or "application/octet-stream",
        )

    def get(self, key: str) -> bytes:
        try:
            response = self.client.get_object(self.bucket, self._name(key))
        except S3Error as exc:
            if exc.code in _MISSING:
                raise KeyError(key) from None
            raise
        try:
            return response.read()
        finally:
            response.close()
            response.release_conn()

    def size(self, key: str) -> int | None:
        try:
            return int(self.client.stat_object(self.bucket, self._name(key)).size or 0)
        except S3Error as exc:
            if exc.code in _MISSING:
                return None
            raise

    def delete(self, key: str) -> None:
        # S3 answers 204 for a missing key too: deleting twice is not an error.
        self.client.remove_object(self.bucket, self._name(key))
