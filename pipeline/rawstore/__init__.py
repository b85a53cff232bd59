from pipeline.rawstore.archive import RawArchive, RawRef, RecoveryReport
from pipeline.rawstore.base import RawStore, object_key, open_raw_store

__all__ = ["RawArchive", "RawRef", "RawStore", "RecoveryReport", "object_key", "open_raw_store"]
