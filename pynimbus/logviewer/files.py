"""Reading log files as the logviewer does: plain or gzipped, from an offset.  Blocking."""

import gzip
import os
import struct


def is_gzip_name(path):
    return path.endswith(".gz")


def zip_file_size(path):
    """Port of ``Utils.zipFileSize``: the uncompressed size a gzip file's trailer records
    (modulo 2**32, as gzip stores it)."""
    with open(path, "rb") as f:
        f.seek(-4, os.SEEK_END)
        return struct.unpack("<I", f.read(4))[0]


def file_length(path):
    """The length the logviewer pages and searches by: the uncompressed size of a ``.gz``
    file, else its size."""
    return zip_file_size(path) if is_gzip_name(path) else os.path.getsize(path)


def open_log(path):
    """A binary stream of the file's text (gzip decompressed)."""
    return gzip.open(path, "rb") if is_gzip_name(path) else open(path, "rb")


def read_fully(stream, size):
    """Up to ``size`` bytes, fewer only at the end of the stream."""
    chunks, left = [], size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
