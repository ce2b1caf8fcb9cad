#!/usr/bin/python3
"""heldfs.py MOUNTPOINT FLAGDIR

A FUSE file system with one empty file, /held, whose flush (the close of
a descriptor) is not answered until FLAGDIR/go exists. A process that
opened /held with O_CLOEXEC and then calls execve closes it inside the
exec, holding its exec lock: until go exists, reads of its /proc/PID/stat,
io, syscall and wchan wait (any user with FUSE can do this to their own
process). Prints "held" on stderr when a flush starts waiting.
Runs in the foreground until unmounted (fusermount -u MOUNTPOINT)."""
import errno
import os
import stat
import sys
import time

from fusepy import FUSE, FuseOSError, Operations


class Held(Operations):
    def __init__(self, flags):
        self.go = os.path.join(flags, "go")

    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2)
        if path == "/held":
            return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_size=0)
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", "held"]

    def open(self, path, flags):
        return 0

    def read(self, path, size, offset, fh):
        return b""

    def flush(self, path, fh):
        sys.stderr.write("held\n")
        sys.stderr.flush()
        while not os.path.exists(self.go):
            time.sleep(0.02)
        return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    FUSE(Held(sys.argv[2]), sys.argv[1], foreground=True, nothreads=False)
