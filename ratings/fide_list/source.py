"""The file as downloaded: a list or a ZIP holding one, read through a size limit, damage named."""

from __future__ import annotations

import io
import lzma
import struct
import zipfile
import zlib
from typing import IO

from ratings.fide_list.layout import _shown
from ratings.fide_list.rows import FideListFormatError

# ------------------------------------------------------------------------------------ the file as downloaded

# What a damaged archive raises while it is opened or read (zipfile lets the codecs' errors through): a bad
# header or CRC (BadZipFile), corrupt deflate/lzma data, an unknown method (NotImplementedError), an
# encrypted member (RuntimeError), offsets past the end (OSError, EOFError), a short structure (struct.error).
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    NotImplementedError,
    RuntimeError,
    OSError,
    EOFError,
    ValueError,
    struct.error,
)


class _LimitedStream:
    """A binary stream read through: at most ``max_bytes`` bytes (then FideListFormatError, having read no
    more than the limit and one chunk), and an archive's damage reported as FideListFormatError naming
    ``where`` (the archive and its member)."""

    def __init__(self, raw: IO[bytes], where: str, max_bytes: int | None) -> None:
        self.raw, self.where, self.max_bytes, self.done = raw, where, max_bytes, 0

    def read(self, size: int = -1) -> bytes:
        if self.max_bytes is not None:
            left = self.max_bytes + 1 - self.done  # one byte more than the limit tells "too large"
            size = left if size < 0 else min(size, left)
        try:
            data = self.raw.read(size)
        except FideListFormatError:
            raise
        except _ARCHIVE_ERRORS as exc:
            raise FideListFormatError(f"{self.where}: damaged archive member ({type(exc).__name__}: {exc})") from None
        self.done += len(data)
        if self.max_bytes is not None and self.done > self.max_bytes:
            raise FideListFormatError(
                f"{self.where}: more than {self.max_bytes:,} bytes; a FIDE list may have at most "
                f"{self.max_bytes:,} bytes (FIDE_LIST_MAX_BYTES); nothing imported"
            )
        return data


def fide_list_source(handle: IO[bytes], name: str, *, max_bytes: int | None = None) -> tuple[str, int, IO[bytes]]:
    """The list in a download as FIDE serves it: ``(source name, size, binary stream)``.

    ``handle``: the downloaded file, seekable; a ZIP must hold exactly one file, whose name becomes the
    source name (``players_list_foa.txt``: it tells a single-type list's type). ``size``: the (declared)
    uncompressed size, for progress. The stream raises ``FideListFormatError`` naming the archive and its
    member when the archive is damaged (when opened or while read: a bad CRC shows at the end), and naming
    the file when it has more than ``max_bytes`` bytes (counted as read, so a ZIP bomb stops there).
    """
    try:
        is_zip = zipfile.is_zipfile(handle)
        handle.seek(0)
        if not is_zip:
            size = handle.seek(0, io.SEEK_END)
            handle.seek(0)
            return name, size, _LimitedStream(handle, name, max_bytes)  # type: ignore[return-value]
        archive = zipfile.ZipFile(handle)
        members = [m for m in archive.infolist() if not m.is_dir()]
    except _ARCHIVE_ERRORS as exc:
        raise FideListFormatError(f"{name}: not a readable ZIP archive ({type(exc).__name__}: {exc})") from None
    if len(members) != 1:
        names = ", ".join(m.filename for m in members) or "nothing"
        raise FideListFormatError(f"{name}: expected one list in the ZIP, found {_shown(names)[1:-1]}")
    member = members[0]
    where = f"{name}: {member.filename}"
    try:
        raw = archive.open(member)
    except _ARCHIVE_ERRORS as exc:
        raise FideListFormatError(f"{where}: damaged archive member ({type(exc).__name__}: {exc})") from None
    return member.filename, member.file_size, _LimitedStream(raw, where, max_bytes)  # type: ignore[return-value]
