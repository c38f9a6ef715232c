//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Root is a directory opened for writing below it. Its methods may be
// called from several goroutines.
type Root struct {
	name string
	fd   int
}

// OpenRoot opens the existing directory dir (dir itself may be reached
// through symbolic links: the user named it).
func OpenRoot(dir string) (*Root, error) {
	fd, err := retry(func() (int, error) {
		return unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &Root{name: dir, fd: fd}, nil
}

// Close closes the root's descriptor.
func (r *Root) Close() error { return unix.Close(r.fd) }

func retry(f func() (int, error)) (int, error) {
	for {
		fd, err := f()
		if err != unix.EINTR && err != unix.EAGAIN {
			return fd, err
		}
	}
}

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// isLink reports whether name in the folder dfd is a symbolic link.
func isLink(dfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// walk opens the folder comps below the root, one component at a time,
// never following a symbolic link; with mkdir it creates the missing
// folders (mode perm). The caller closes the descriptor unless it is r.fd.
func (r *Root) walk(comps []string, mkdir bool, perm uint32) (int, error) {
	fd := r.fd
	for i, c := range comps {
		nfd, err := retry(func() (int, error) { return unix.Openat(fd, c, dirFlags, 0) })
		if err == unix.ENOENT && mkdir {
			if err = unix.Mkdirat(fd, c, perm); err == nil || err == unix.EEXIST {
				nfd, err = retry(func() (int, error) { return unix.Openat(fd, c, dirFlags, 0) })
			}
		}
		if err != nil && isLink(fd, c) {
			err = errSymlinkAt(comps[:i+1])
		}
		if fd != r.fd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = nfd
	}
	return fd, nil
}

func errSymlinkAt(comps []string) error { return &symlinkAt{at: strings.Join(comps, "/")} }

// dir opens the folder comps below the root: openat2 in one call where the
// kernel has it, else walk.
func (r *Root) dir(comps []string, mkdir bool, perm uint32) (int, error) {
	if len(comps) == 0 {
		return r.fd, nil
	}
	fd, err := openat2(r.fd, strings.Join(comps, "/"), dirFlags, 0)
	if err == nil {
		return fd, nil
	}
	if fallBack(err) || err == unix.ENOENT && mkdir {
		// find the link (or make the folders) component by component
		return r.walk(comps, mkdir, perm)
	}
	return -1, err
}

// fallBack reports whether an error of openat2 calls for walk: no openat2
// (or one a seccomp filter forbids), or a link or ".." met on the way,
// which walk names.
func fallBack(err error) bool {
	switch err {
	case errNoOpenat2, unix.ELOOP, unix.EXDEV, unix.EPERM, unix.ENOTDIR, unix.E2BIG, unix.EINVAL:
		return true
	}
	return false
}

func (r *Root) closeDir(fd int) {
	if fd != r.fd {
		unix.Close(fd)
	}
}

// classify turns the error of an operation on the last component into
// ErrSymlink when it is a symbolic link.
func classify(err error, dfd int, name string, comps []string) error {
	if err != nil && err != unix.ENOENT && err != unix.EEXIST && isLink(dfd, name) {
		return errSymlinkAt(comps)
	}
	return err
}

// OpenFD opens the file rel with open(2) flags (O_NOFOLLOW and O_CLOEXEC
// are added, and O_NONBLOCK for writing: a FIFO planted where a file is to
// be written fails with ENXIO instead of blocking until a reader comes;
// on a regular file O_NONBLOCK changes nothing) and returns its
// descriptor.
func (r *Root) OpenFD(rel string, flag int, perm uint32) (int, error) {
	comps, err := split("open", rel)
	if err != nil {
		return -1, err
	}
	if len(comps) == 0 {
		return -1, &fs.PathError{Op: "open", Path: rel, Err: unix.EISDIR}
	}
	flag |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	if flag&(unix.O_WRONLY|unix.O_RDWR) != 0 {
		flag |= unix.O_NONBLOCK
	}
	fd, err := openat2(r.fd, strings.Join(comps, "/"), flag, perm)
	if fallBack(err) {
		dfd, derr := r.dir(comps[:len(comps)-1], false, 0)
		if derr != nil {
			return -1, pathError("open", rel, derr)
		}
		last := comps[len(comps)-1]
		fd, err = retry(func() (int, error) { return unix.Openat(dfd, last, flag, perm) })
		err = classify(err, dfd, last, comps)
		r.closeDir(dfd)
	}
	if err != nil {
		return -1, pathError("open", rel, err)
	}
	return fd, nil
}

// OpenFile opens the file rel as os.OpenFile does, refusing symbolic
// links.
func (r *Root) OpenFile(rel string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := r.OpenFD(rel, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), r.full(rel)), nil
}

// OpenDirFD opens the folder rel (which must exist) and returns its
// descriptor.
func (r *Root) OpenDirFD(rel string) (int, error) {
	comps, err := split("open", rel)
	if err != nil {
		return -1, err
	}
	if len(comps) == 0 {
		return retry(func() (int, error) { return unix.Openat(r.fd, ".", dirFlags, 0) })
	}
	fd, err := r.dir(comps, false, 0)
	if err != nil {
		return -1, pathError("open", rel, err)
	}
	return fd, nil
}

// at runs op on the last component of rel in its opened parent folder.
func (r *Root) at(op, rel string, mkdir bool, f func(dfd int, name string, comps []string) error) error {
	comps, err := split(op, rel)
	if err != nil {
		return err
	}
	if len(comps) == 0 {
		return &fs.PathError{Op: op, Path: rel, Err: unix.EINVAL}
	}
	dfd, err := r.dir(comps[:len(comps)-1], mkdir, 0o777)
	if err == nil {
		err = f(dfd, comps[len(comps)-1], comps)
		r.closeDir(dfd)
	}
	if err != nil {
		return pathError(op, rel, err)
	}
	return nil
}

// Mkdir creates the folder rel.
func (r *Root) Mkdir(rel string, perm os.FileMode) error {
	return r.at("mkdir", rel, false, func(dfd int, name string, comps []string) error {
		return classify(unix.Mkdirat(dfd, name, uint32(perm.Perm())), dfd, name, comps)
	})
}

// MkdirAll creates the folder rel and the missing ones above it.
func (r *Root) MkdirAll(rel string, perm os.FileMode) error {
	comps, err := split("mkdir", rel)
	if err != nil {
		return err
	}
	fd, err := r.dir(comps, false, 0)
	if err == unix.ENOENT {
		fd, err = r.walk(comps, true, uint32(perm.Perm()))
	}
	if err != nil {
		return pathError("mkdir", rel, err)
	}
	r.closeDir(fd)
	return nil
}

// Symlink creates the symbolic link rel pointing at target (not checked:
// a Root never follows it).
func (r *Root) Symlink(target, rel string) error {
	return r.at("symlink", rel, false, func(dfd int, name string, comps []string) error {
		return unix.Symlinkat(target, dfd, name)
	})
}

// Remove removes the file or empty folder rel (a symbolic link itself,
// not what it points at).
func (r *Root) Remove(rel string) error {
	return r.at("remove", rel, false, func(dfd int, name string, comps []string) error {
		err := unix.Unlinkat(dfd, name, 0)
		if err == unix.EISDIR || err == unix.EPERM {
			if err2 := unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR); err2 == nil || err2 != unix.ENOTDIR {
				err = err2
			}
		}
		return err
	})
}

// Rename renames oldrel to newrel; neither may be a symbolic link.
func (r *Root) Rename(oldrel, newrel string) error {
	oc, err := split("rename", oldrel)
	if err != nil {
		return err
	}
	nc, err := split("rename", newrel)
	if err != nil {
		return err
	}
	fail := func(p string, err error) error {
		return pathError("rename", p, err)
	}
	if len(oc) == 0 || len(nc) == 0 {
		return fail(oldrel, unix.EINVAL)
	}
	ofd, err := r.dir(oc[:len(oc)-1], false, 0)
	if err != nil {
		return fail(oldrel, err)
	}
	defer r.closeDir(ofd)
	nfd, err := r.dir(nc[:len(nc)-1], false, 0)
	if err != nil {
		return fail(newrel, err)
	}
	defer r.closeDir(nfd)
	oname, nname := oc[len(oc)-1], nc[len(nc)-1]
	if isLink(ofd, oname) {
		return fail(oldrel, errSymlinkAt(oc))
	}
	if isLink(nfd, nname) {
		return fail(newrel, errSymlinkAt(nc))
	}
	if err := unix.Renameat(ofd, oname, nfd, nname); err != nil {
		return &os.LinkError{Op: "rename", Old: oldrel, New: newrel, Err: err}
	}
	return nil
}

// Chmod changes the mode of the file rel (not through a link).
func (r *Root) Chmod(rel string, mode os.FileMode) error {
	fd, err := r.OpenFD(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, uint32(mode.Perm())); err != nil {
		return &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	return nil
}

// Lstat describes rel without following a symbolic link at its end (one
// in the middle is refused).
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	var fi *fileInfo
	comps, err := split("lstat", rel)
	if err != nil {
		return nil, err
	}
	if len(comps) == 0 {
		var st unix.Stat_t
		if err := unix.Fstat(r.fd, &st); err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: rel, Err: err}
		}
		return newInfo(".", &st), nil
	}
	err = r.at("lstat", rel, false, func(dfd int, name string, comps []string) error {
		var st unix.Stat_t
		if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		fi = newInfo(name, &st)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fi, nil
}

// Stat describes rel; a symbolic link anywhere in it, at its end too, is
// refused.
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	fi, err := r.Lstat(rel)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		comps, _ := split("stat", rel)
		return nil, pathError("stat", rel, errSymlinkAt(comps))
	}
	return fi, err
}

type fileInfo struct {
	name string
	st   unix.Stat_t
}

func newInfo(name string, st *unix.Stat_t) *fileInfo { return &fileInfo{name, *st} }

func (fi *fileInfo) Name() string { return fi.name }
func (fi *fileInfo) Size() int64  { return fi.st.Size }
func (fi *fileInfo) IsDir() bool  { return fi.Mode().IsDir() }
func (fi *fileInfo) Sys() any     { return &fi.st }
func (fi *fileInfo) ModTime() time.Time {
	return time.Unix(int64(fi.st.Mtim.Sec), int64(fi.st.Mtim.Nsec))
}

func (fi *fileInfo) Mode() fs.FileMode {
	m := uint32(fi.st.Mode)
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

var errNoOpenat2 = errors.New("no openat2")
