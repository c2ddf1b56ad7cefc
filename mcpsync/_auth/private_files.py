"""Files that only the user can have put there: what mcpsync keeps between runs and would act on.

The token store's rules, for every such file (the tokens and registrations, the tool cache): the
directory is a directory, not a symbolic link, owned by the user running mcpsync, that nobody else
can write in (one that others can read is tightened to 0700; one made here is 0700); each entry is
a regular file of the user's, never reached through a symbolic link (one that others can read is
tightened to 0600), read up to a bound; writes go to a new file of mode 0600 beside the entry, then
replace it, so a reader never sees half a file. Every step after the check goes through the checked
directory's descriptor (``dir_fd``): what was checked is what is used, whatever is renamed or linked
in its place meanwhile. What is refused is said by the owner's ``refuse(why, path)``.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import stat
from pathlib import Path
from typing import Callable, Optional, Union

__all__ = ["PrivateDirectory"]

Refuse = Callable[[str, Union[str, Path, None]], Exception]


class PrivateDirectory:
    """One directory under the rules above.

    Args:
        directory: its path.
        what: what it holds, for the log lines (``"token store"``, ``"tool cache"``).
        refuse: ``refuse(why, path)`` makes the exception raised when the directory or an entry is
            refused (``path`` ``None``: the directory itself).
        logger: where tightened modes and unreadable entries are told.
    """

    def __init__(self, directory: Path, what: str, refuse: Refuse, logger: logging.Logger) -> None:
        self.directory = directory
        self.what = what
        self._refuse = refuse
        self._logger = logger

    def open(self, *, create: bool) -> Optional[int]:
        """A descriptor of the directory, checked; ``None`` when there is none and ``create`` is false."""
        directory = self.directory
        made = False
        if create and not os.path.lexists(directory):
            directory.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            try:
                os.mkdir(directory, 0o700)
                made = True
            except FileExistsError:
                pass
        try:
            descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP or os.path.islink(directory):
                raise self._refuse(
                    f"it is a symbolic link (a {self.what} is never reached through one)", None
                ) from None
            if exc.errno == errno.ENOTDIR:
                raise self._refuse("it is not a directory", None) from None
            raise self._refuse(f"it cannot be opened ({exc.strerror})", None) from None
        try:
            self._check(descriptor, made)
        except BaseException:
            os.close(descriptor)
            raise
        return descriptor

    def _check(self, descriptor: int, made: bool) -> None:
        status = os.fstat(descriptor)
        uid = os.geteuid()
        if status.st_uid != uid:
            raise self._refuse(f"it belongs to uid {status.st_uid}, not to you (uid {uid})", None)
        mode = stat.S_IMODE(status.st_mode)
        if mode & 0o022:
            raise self._refuse(
                f"others can write in it (mode {mode:04o}), so any entry in it may have been planted; "
                "look at it, then remove it or make it yours alone (chmod 700)",
                None,
            )
        if mode & 0o077:
            if not made:
                self._logger.warning(
                    "%s: %s could be read by others (mode %04o); made 0700", self.what, self.directory, mode
                )
            os.fchmod(descriptor, 0o700)

    def open_entry(self, descriptor: int, name: str) -> Optional[int]:
        """A descriptor of one entry, checked; ``None`` when there is none."""
        try:
            file = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=descriptor)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise self._refuse("it is a symbolic link (never followed)", self.directory / name) from None
            raise self._refuse(f"it cannot be opened ({exc.strerror})", self.directory / name) from None
        try:
            status = os.fstat(file)
            if not stat.S_ISREG(status.st_mode):
                raise self._refuse("it is not a regular file", self.directory / name)
            if status.st_uid != os.geteuid():
                raise self._refuse(f"it belongs to uid {status.st_uid}, not to you", self.directory / name)
            if stat.S_IMODE(status.st_mode) & 0o077:
                self._logger.warning("%s: %s could be read by others; made 0600", self.what, self.directory / name)
                os.fchmod(file, 0o600)
        except BaseException:
            os.close(file)
            raise
        return file

    def read(self, descriptor: int, name: str, limit: int) -> Optional[bytes]:
        """The bytes of one entry; ``None`` when there is none, it cannot be read, or it is over ``limit``."""
        file = self.open_entry(descriptor, name)
        if file is None:
            return None
        try:
            with os.fdopen(file, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            self._logger.warning(
                "%s: %s is unreadable, ignored: %s", self.what, self.directory / name, type(exc).__name__
            )
            return None
        if len(data) > limit:
            self._logger.warning("%s: %s is over %d bytes, ignored", self.what, self.directory / name, limit)
            return None
        return data

    def read_entry(self, name: str, limit: int) -> Optional[bytes]:
        """``read`` of one entry, the directory opened (``open``) and closed around it; ``None`` also
        when there is no directory."""
        descriptor = self.open(create=False)
        if descriptor is None:
            return None
        try:
            return self.read(descriptor, name, limit)
        finally:
            os.close(descriptor)

    def write_entry(self, name: str, data: bytes) -> None:
        """``write`` of one entry, the directory made if need be, opened and closed around it."""
        descriptor = self.open(create=True)
        assert descriptor is not None
        try:
            self.write(descriptor, name, data)
        finally:
            os.close(descriptor)

    @staticmethod
    def write(descriptor: int, name: str, data: bytes) -> None:
        """Write ``data`` to a new file of mode 0600 beside ``name``, then put it in its place: a reader
        never sees half a file, a crash leaves at most a ``.tmp-`` file that nothing reads."""
        temporary = f".tmp-{secrets.token_hex(8)}.json"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        file = os.open(temporary, flags, 0o600, dir_fd=descriptor)
        try:
            try:
                os.fchmod(file, 0o600)
                view = memoryview(data)
                while view:
                    view = view[os.write(file, view) :]
                os.fsync(file)
            finally:
                os.close(file)
            os.replace(temporary, name, src_dir_fd=descriptor, dst_dir_fd=descriptor)
        except BaseException:
            try:
                os.unlink(temporary, dir_fd=descriptor)
            except OSError:
                pass
            raise
        try:
            os.fsync(descriptor)  # the rename itself survives a crash
        except OSError:
            pass
