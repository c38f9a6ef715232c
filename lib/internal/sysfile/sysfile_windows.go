package sysfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/windows"
)

// lockOffset is where the byte Lock locks lies: far past the end of any
// real file, so the mandatory Windows lock never blocks a read or write of
// the file's bytes through another handle (SQLite locks bytes past 1 GiB
// for the same reason).
const lockOffset = 1 << 62

// Lock takes an exclusive lock on f without waiting (LockFileEx with
// LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY on one byte at
// lockOffset). It is released when f is closed. A lock held elsewhere
// gives ErrLocked.
func Lock(f *os.File) error {
	ol := new(windows.Overlapped)
	ol.Offset = uint32(lockOffset & 0xffffffff)
	ol.OffsetHigh = uint32(lockOffset >> 32)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLocked
	}
	return err
}

// OpenFile is os.OpenFile, except that the file is opened with
// FILE_SHARE_DELETE: it can then be renamed or removed while open, as on
// Unix. Only the flags os.OpenFile documents are known; perm matters only
// for its write bit (none: a read-only file), as in os.OpenFile.
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		access &^= windows.GENERIC_WRITE
		access |= windows.FILE_APPEND_DATA
	}
	var create uint32
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		create = windows.CREATE_NEW
	case flag&(os.O_CREATE|os.O_TRUNC) == os.O_CREATE|os.O_TRUNC:
		create = windows.CREATE_ALWAYS
	case flag&os.O_CREATE == os.O_CREATE:
		create = windows.OPEN_ALWAYS
	case flag&os.O_TRUNC == os.O_TRUNC:
		create = windows.TRUNCATE_EXISTING
	default:
		create = windows.OPEN_EXISTING
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if flag&os.O_CREATE != 0 && perm&0o200 == 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, create, attrs, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(h), name), nil
}

// SyncDir does nothing on Windows: a folder handle cannot be flushed
// (FlushFileBuffers needs write access to it), and NTFS journals the
// renames and removals that SyncDir makes durable on Unix.
func SyncDir(dir string) error { return nil }

// FileID returns the file index of f on its volume
// (GetFileInformationByHandle).
func FileID(f *os.File) (uint64, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 0, &os.PathError{Op: "fileid", Path: f.Name(), Err: err}
	}
	return uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), nil
}

// tempSeq varies the names CreateDeleteOnClose tries.
var tempSeq atomic.Uint64

// CreateDeleteOnClose creates a new temporary file in dir ("" for
// os.TempDir()), named from pattern as os.CreateTemp names it, that
// Windows deletes when its last handle is closed, however the process
// ends (FILE_FLAG_DELETE_ON_CLOSE): the equivalent of an unlinked file on
// Unix. Its name stays in the folder while it is open.
func CreateDeleteOnClose(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	pre, suf := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		pre, suf = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		n := uint64(time.Now().UnixNano()) ^ tempSeq.Add(0x9E3779B97F4A7C15)
		name := filepath.Join(dir, pre+strconv.FormatUint(n%1e10, 10)+suf)
		p, err := windows.UTF16PtrFromString(name)
		if err != nil {
			return nil, &os.PathError{Op: "createtemp", Path: name, Err: err}
		}
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
			windows.CREATE_NEW, windows.FILE_ATTRIBUTE_TEMPORARY|windows.FILE_FLAG_DELETE_ON_CLOSE, 0)
		if errors.Is(err, windows.ERROR_FILE_EXISTS) && try < 10000 {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "createtemp", Path: name, Err: err}
		}
		return os.NewFile(uintptr(h), name), nil
	}
}

// RenameDurable renames oldpath to newpath, replacing it, and returns once
// the rename is on disk (MoveFileEx with MOVEFILE_WRITE_THROUGH): what
// os.Rename followed by SyncDir does on Unix.
func RenameDurable(oldpath, newpath string) error {
	from, err := windows.UTF16PtrFromString(oldpath)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	to, err := windows.UTF16PtrFromString(newpath)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	if err := windows.MoveFileEx(from, to, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}
