// Package sysfile holds the few file operations whose safe form differs
// between operating systems, behind one signature each, so that the tools
// build and behave alike on Linux, macOS, FreeBSD and Windows:
//
//   - Lock: an exclusive, non-blocking lock on an open file (flock(2) on
//     Linux and the BSDs, LockFileEx on Windows, nothing elsewhere).
//   - OpenFile: os.OpenFile, except that on Windows the file is opened
//     with FILE_SHARE_DELETE, so it can be renamed or removed while open as
//     on Unix (a journal renamed into place, then removed on rollback).
//   - SyncDir: makes the names in a folder durable (fsync of the folder on
//     Unix; on Windows a no-op: NTFS journals its metadata, and a folder
//     handle cannot be flushed).
//   - CreateDeleteOnClose: a temporary file that is gone once closed,
//     however the process ends (created and unlinked at once on Unix;
//     FILE_FLAG_DELETE_ON_CLOSE on Windows, where an open file keeps its
//     name).
//   - RenameDurable: a rename that is on disk when it returns (rename and
//     fsync of the folder on Unix, MoveFileEx with MOVEFILE_WRITE_THROUGH
//     on Windows).
//   - FileID: a number naming the file itself (the inode number on Unix,
//     the volume file index on Windows), so that a file replaced under the
//     same name is told apart.
//
// docs/platforms.md lists what each fallback costs.
package sysfile

import "errors"

// ErrLocked is the error of Lock when another process (or another open
// file in this one) holds the lock.
var ErrLocked = errors.New("locked by another process")
