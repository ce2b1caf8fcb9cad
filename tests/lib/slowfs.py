#!/usr/bin/python3
"""slowfs.py BACKING_DIR MOUNTPOINT DELAY_S

A FUSE passthrough filesystem that sleeps DELAY_S before every read and
write, one request at a time. A loop device on a file in it is a disk that
drains slowly: the tests use it to prove that a scheduler switch (which
freezes and drains the queue) never freezes iosched-top's screen.
Runs in the foreground until unmounted (fusermount -u MOUNTPOINT)."""
import errno
import os
import sys
import time

from fusepy import FUSE, FuseOSError, Operations


class Slow(Operations):
    def __init__(self, root, delay):
        self.root = root
        self.delay = delay

    def _p(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self._p(path))
        except OSError as e:
            raise FuseOSError(e.errno)
        return {k: getattr(st, k) for k in ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime",
                                            "st_nlink", "st_size", "st_uid", "st_blocks")}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._p(path))

    def open(self, path, flags):
        return os.open(self._p(path), flags & ~os.O_DIRECT)

    def create(self, path, mode, fi=None):
        return os.open(self._p(path), os.O_WRONLY | os.O_CREAT, mode)

    def read(self, path, size, offset, fh):
        time.sleep(self.delay)
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        time.sleep(self.delay)
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        os.truncate(self._p(path), length)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        return 0

    def release(self, path, fh):
        os.close(fh)

    def statfs(self, path):
        st = os.statvfs(self._p(path))
        return {k: getattr(st, k) for k in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail",
                                            "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}

    def unlink(self, path):
        os.unlink(self._p(path))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    FUSE(Slow(sys.argv[1], float(sys.argv[3])), sys.argv[2], foreground=True, nothreads=True)
