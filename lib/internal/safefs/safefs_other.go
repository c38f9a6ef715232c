//go:build !unix

package safefs

import (
	"io/fs"
	"os"
	"strings"
)

// Root is a directory opened for writing below it. Its methods may be
// called from several goroutines.
type Root struct {
	name string
	r    *os.Root
}

// OpenRoot opens the existing directory dir (dir itself may be reached
// through symbolic links: the user named it).
func OpenRoot(dir string) (*Root, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Root{name: dir, r: r}, nil
}

// Close closes the root.
func (r *Root) Close() error { return r.r.Close() }

// check refuses rel when one of its first n components (all when n < 0)
// is a symbolic link; os.Root keeps every path below the root.
func (r *Root) check(op, rel string, n int) (string, error) {
	comps, err := split(op, rel)
	if err != nil {
		return "", err
	}
	if n < 0 || n > len(comps) {
		n = len(comps)
	}
	for i := 1; i <= n; i++ {
		fi, err := r.r.Lstat(strings.Join(comps[:i], "/"))
		if err != nil {
			break // missing: nothing below it to follow
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", pathError(op, rel, &symlinkAt{strings.Join(comps[:i], "/")})
		}
	}
	if len(comps) == 0 {
		return ".", nil
	}
	return strings.Join(comps, "/"), nil
}

// OpenFile opens the file rel as os.OpenFile does, refusing symbolic
// links.
func (r *Root) OpenFile(rel string, flag int, perm os.FileMode) (*os.File, error) {
	p, err := r.check("open", rel, -1)
	if err != nil {
		return nil, err
	}
	return r.r.OpenFile(p, flag, perm)
}

// Mkdir creates the folder rel.
func (r *Root) Mkdir(rel string, perm os.FileMode) error {
	p, err := r.check("mkdir", rel, -1)
	if err != nil {
		return err
	}
	return r.r.Mkdir(p, perm)
}

// MkdirAll creates the folder rel and the missing ones above it.
func (r *Root) MkdirAll(rel string, perm os.FileMode) error {
	p, err := r.check("mkdir", rel, -1)
	if err != nil {
		return err
	}
	return r.r.MkdirAll(p, perm)
}

// Symlink creates the symbolic link rel pointing at target.
func (r *Root) Symlink(target, rel string) error {
	p, err := r.check("symlink", rel, -1)
	if err != nil {
		return err
	}
	return r.r.Symlink(target, p)
}

// Remove removes the file or empty folder rel (a symbolic link itself,
// not what it points at).
func (r *Root) Remove(rel string) error {
	comps, err := split("remove", rel)
	if err != nil {
		return err
	}
	p, err := r.check("remove", rel, len(comps)-1)
	if err != nil {
		return err
	}
	return r.r.Remove(p)
}

// Rename renames oldrel to newrel; neither may be a symbolic link.
func (r *Root) Rename(oldrel, newrel string) error {
	op, err := r.check("rename", oldrel, -1)
	if err != nil {
		return err
	}
	np, err := r.check("rename", newrel, -1)
	if err != nil {
		return err
	}
	return r.r.Rename(op, np)
}

// Chmod changes the mode of the file rel (not through a link).
func (r *Root) Chmod(rel string, mode os.FileMode) error {
	p, err := r.check("chmod", rel, -1)
	if err != nil {
		return err
	}
	return r.r.Chmod(p, mode)
}

// Lstat describes rel without following a symbolic link at its end (one
// in the middle is refused).
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	comps, err := split("lstat", rel)
	if err != nil {
		return nil, err
	}
	p, err := r.check("lstat", rel, len(comps)-1)
	if err != nil {
		return nil, err
	}
	return r.r.Lstat(p)
}

// Stat describes rel; a symbolic link anywhere in it, at its end too, is
// refused.
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	p, err := r.check("stat", rel, -1)
	if err != nil {
		return nil, err
	}
	return r.r.Lstat(p)
}
